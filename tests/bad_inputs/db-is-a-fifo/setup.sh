mkfifo pipe.db
