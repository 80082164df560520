mkdir folder.toml
