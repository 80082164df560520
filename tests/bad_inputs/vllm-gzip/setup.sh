set -e
printf '{"model_id": "m", "completed": 1}\n' | gzip -c > result.json.gz
