set -e
python3 -c 'import json; print(json.dumps({"model_id": "m", "completed": 1, "ttfts": [0.1 * i for i in range(64)]}))' | gzip -9 -n -c > whole.json.gz
head -c 40 whole.json.gz > result.json.gz
rm whole.json.gz
