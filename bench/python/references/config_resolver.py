class Resolver:
    def get(self):
        raise KeyError('storage.ap-south.retention_days')


Resolver().get()
