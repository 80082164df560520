SELECT count(*) FROM runs WHERE tp = :tp;
