UPDATE runs SET status = 'ok';
