SELECT count(*) FROM samples;
