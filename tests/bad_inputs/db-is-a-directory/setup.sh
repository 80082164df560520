mkdir folder.db
