mkdir specs && printf 'kind = "vllm_bench"\nfiles = ["absent.json"]\n' > specs/spec.toml
