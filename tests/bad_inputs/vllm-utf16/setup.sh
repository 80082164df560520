set -e
# a result as PowerShell writes it again: UTF-16LE after its byte-order mark ({"model_id": "m"})
printf '\377\376{\0"\0m\0o\0d\0e\0l\0_\0i\0d\0"\0:\0 \0"\0m\0"\0}\0\r\0\n\0' > result.json
