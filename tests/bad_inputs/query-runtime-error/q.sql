SELECT json_extract('{', '$');
