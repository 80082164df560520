#!/usr/bin/env python3
"""Profile a tensor-parallel MoE decode loop on every rank, for `xp import torch-trace`.

A small Megatron-style transformer (attention and MoE experts sharded over TP ranks, an
all-reduce after attention and after the MoE block), decoding one token per step for a batch,
profiled with torch.profiler on every rank. Each step is wrapped in a `decode_step` annotation.

    torchrun --nproc_per_node=2 experiments/traces/make_tp_trace.py --out /tmp/traces --batch 1
    xp import torch-trace /tmp/traces/*.trace.json.gz --set tp=2 --set batch=1 ...

NVLink multicast stays off (NCCL_NVLS_ENABLE=0): it can take shared GPUs out of service.
"""
import argparse
import os

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule


class Layer(torch.nn.Module):
    def __init__(self, hidden, heads, experts, inter, tp, dtype, dev):
        super().__init__()
        self.heads_local = heads // tp
        self.head_dim = hidden // heads
        self.experts = experts
        kw = dict(device=dev, dtype=dtype)
        self.norm1 = torch.ones(hidden, **kw)
        self.norm2 = torch.ones(hidden, **kw)
        self.qkv = torch.randn(3 * hidden // tp, hidden, **kw) * hidden ** -0.5
        self.o = torch.randn(hidden, hidden // tp, **kw) * hidden ** -0.5
        self.gate = torch.randn(experts, hidden, **kw) * hidden ** -0.5
        self.w13 = torch.randn(experts, 2 * inter // tp, hidden, **kw) * hidden ** -0.5
        self.w2 = torch.randn(experts, hidden, inter // tp, **kw) * inter ** -0.5

    def forward(self, x, kcache, vcache, topk):
        b = x.shape[0]
        with record_function("attention"):
            h = F.rms_norm(x, (x.shape[-1],), self.norm1)
            q, k, v = F.linear(h, self.qkv).view(b, 3, self.heads_local, self.head_dim).unbind(1)
            keys = torch.cat([kcache, k.unsqueeze(2)], dim=2)
            vals = torch.cat([vcache, v.unsqueeze(2)], dim=2)
            a = F.scaled_dot_product_attention(q.unsqueeze(2), keys, vals).reshape(b, -1)
            out = F.linear(a, self.o)
        dist.all_reduce(out)
        x = x + out
        with record_function("moe"):
            h = F.rms_norm(x, (x.shape[-1],), self.norm2)
            scores = F.softmax(F.linear(h, self.gate).float(), dim=-1)
            w, idx = torch.topk(scores, topk, dim=-1)
            w = (w / w.sum(-1, keepdim=True)).to(x.dtype)
            y = torch.zeros_like(x)
            for e in range(self.experts):
                tok, slot = (idx == e).nonzero(as_tuple=True)
                if tok.numel() == 0:
                    continue
                g, u = F.linear(h[tok], self.w13[e]).chunk(2, dim=-1)
                y.index_add_(0, tok, F.linear(F.silu(g) * u, self.w2[e]) * w[tok, slot, None])
        dist.all_reduce(y)
        return x + y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--layers", type=int, default=16)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--experts", type=int, default=16)
    p.add_argument("--topk", type=int, default=2)
    p.add_argument("--inter", type=int, default=2048)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--context", type=int, default=512)
    p.add_argument("--steps", type=int, default=8)
    args = p.parse_args()

    dist.init_process_group("nccl")
    rank, tp = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    torch.cuda.set_device(dev)
    torch.manual_seed(1234)  # same weights on every rank; each holds its own shard shape
    dtype = torch.bfloat16
    layers = [Layer(args.hidden, args.heads, args.experts, args.inter, tp, dtype, dev)
              for _ in range(args.layers)]
    hd = args.hidden // args.heads
    kc = torch.randn(args.batch, args.heads // tp, args.context, hd, device=dev, dtype=dtype)
    vc = torch.randn_like(kc)
    x0 = torch.randn(args.batch, args.hidden, device=dev, dtype=dtype)

    def step():
        with record_function("decode_step"):
            x = x0
            for layer in layers:
                x = layer(x, kc, vc, args.topk)
        return x

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    os.makedirs(args.out, exist_ok=True)
    sched = schedule(wait=1, warmup=2, active=args.steps)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 record_shapes=True) as prof:
        for _ in range(1 + 2 + args.steps):
            step()
            torch.cuda.synchronize()
            prof.step()
    path = os.path.join(args.out, f"tp{tp}_bs{args.batch}_rank{rank}.trace.json.gz")
    prof.export_chrome_trace(path)
    dist.barrier()
    if rank == 0:
        print(f"wrote {tp} traces to {args.out}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
