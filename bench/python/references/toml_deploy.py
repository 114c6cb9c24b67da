import toml


toml.loads("a = edge")
