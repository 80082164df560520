SELECT hex(fts3_tokenizer('simple'));
