if nvidia-smi -L >/dev/null 2>&1; then echo "this machine has a GPU"; exit 77; fi
