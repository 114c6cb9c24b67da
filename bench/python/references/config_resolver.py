raise KeyError('storage.ap-south.retention_days')
