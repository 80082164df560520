VACUUM INTO 'copy.db';
