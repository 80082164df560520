/*
** grouped_moe: the routed experts of one decode batch in ONE persistent launch, each
** expert's weights read once for all the tokens routed to it.
**
** Why one launch: at batch 1 the layer is 22 MB of INT4, about 5 us of HBM time, and every
** launch boundary costs a drain, a ramp and a launch gap of the same order. The down
** projection's weights do not depend on gate_up's results, only its activations do, so one
** grid streams both matrices and synchronizes once, on a counter, before the down products
** read h.
**
** Grid: as many 256-thread blocks as are resident at once (2 per SM; the launch is
** cooperative, so the driver refuses a grid that would not all be resident).
**   gate_up: the batch's distinct experts ("slots", in id order) x 2I/16 row tiles, cut into
**     contiguous runs, one per block; each of the 8 warps takes an eighth of a tile's K
**     chunks (w4::tile_mma). The warps' fragments are summed through shared memory and
**     SiLU(gate) * up is written to h as bf16 (the gate_up layout puts gate row i and up
**     row i in the same thread).
**   down: the H/16 row tiles cut into runs, one per block, all of a block's tiles at once
**     where they fit (ks = 8 / tiles warps each; at batch 1 a block has one or two); warp kk
**     of a tile takes slots kk, kk + ks, ..., weights each product by its token's routing
**     weight, and the tile's sum over all slots is written to y once: no atomics, no
**     zeroing pass, and the same order of additions on every launch. With two row tiles in
**     a block (most blocks, at H = 7168 on 264 blocks), every warp instead takes slots warp,
**     warp + 8, ... of both tiles at once (w4::tile_mma_pair, a pass per token tile that
**     holds tokens of the slot): its two tiles' loads fly together, where one tile per 4
**     warps made each warp wait for two round trips, one slot after the other (2-5% faster
**     at batches 1 to 8 on an H200; at batches 9 to 16, where each warp has twice as many
**     slots to walk, 4-5%). The warp's sums over its slots stay in its rows of the shared
**     FragSum, not in registers, which spilled at two token tiles.
** Every warp streams its chunks with its own loads only, one token tile (8 tokens) at a time
** (w4::tile_mma: two stages of two chunks); nothing asks L2 for data ahead. Batches of 9 to
** 16 take a second pass over the same weights, which then come from L2: in gate_up only for
** an expert with more than 8 of the batch's tokens, in down only for a slot with a token in
** the second tile. Against tile_mma's two-tile rounds (which spill at 128 registers) that
** made batch 16 12% faster on an H200 (160 -> 142 us, G = 128).
** Between the phases: one grid-wide barrier on one counter whose top bit flips when every
** block has arrived (moe_route.cuh: grid_sync), so a launch leaves it ready for the next
** with no second round of atomics at the end.
**
** Batch 1 takes 13.8 us with PDL on an H200 (CUDA 13.0); it took 17 us while each warp asked L2
** for its next 16 chunks and its next tile (prefetch.global.L2); dropping those requests and
** loading in two stages made batches 1 to 16 15-20% faster. Where the 14.7-15.0 us went,
** traced per block with %globaltimer (six launches in graphs of 64, PDL and cooperative;
** times from the first block's start): the routing ends at 0.7 us; each block's gate_up
** tile at 5.1 to 7.9 (median 6.4-7.0: 14.7 MB at about 2.5 TB/s); the last block reaches
** the barrier at 7.7 to 8.7; the first block leaves it 0.5-0.6 us later, the last 0.8-1.0
** us later; down (7.3 MB) ends at 10.0-11.1 us in the first block and 13.0-14.1 in the
** last: blocks with one row tile, whose warps take one slot each, finish first, blocks with
** two, whose warps took two slots one after the other, last (before tile_mma_pair, which
** took 0.25 us off). The next 2-3 us to win are in down and in the barrier's release.
** The floors the runner records beside each case (bench/w4a16_moe.sh): this launch with the
** routing and the barrier only, 3.0 us (2.4 with PDL, w4a16_moe_floor); the same expert
** bytes read bare in one launch, 7.4 us. 70% of the 4.0 TB/s copy ceiling would be 8.1 us:
** 0.7 us above the bare read, less than launch, routing and barrier cost on their own.
** Twelfth session: the skeleton of this kernel (skeleton_kernel below: routing, every weight
** and scale load in this kernel's order, the barrier, no arithmetic), timed beside each case
** as skeleton_floor_us, took 10.1 / 16.1 / 27.2 / 47.8 / 81.3 us at batches 1 / 2 / 4 / 8 / 16
** (PDL, G = 128, H200, CUDA 13.0): 56 / 70 / 81 / 89 / 95% of the copy ceiling. So at batch 1
** (and 2) the 70% target is out of reach of this shape of kernel before any arithmetic, and
** from batch 4 on what the kernel takes above the skeleton (11.5 / 22.2 / 46.4 us at 4 / 8 /
** 16) is conversion and MMAs its loads do not hide.
** Thirteenth session: the same skeleton with its barrier moved (timed beside it as
** stream_floor_us and routed_read_floor_us): after every load, so that gate_up's and down's
** loads are one stream, 9.1 / 15.3 / 26.6 / 47.3 / 81.7 us; left out, 8.4 / 14.4 / 25.9 /
** 46.5 / 80.9 us (H200, CUDA 13.0, PDL, G = 128; the bare read of the same bytes 7.3 /
** 12.4 / 22.4 / 40.9 / 73.0). At batch 1 the 70% target (8.1 us) is out of reach even of a
** kernel that loads everything before one barrier (61-62%), or of one with no barrier at
** all (67-68%): routing, then reading 8 experts' scattered tiles a warp at a time, costs 1.1 us
** more than one launch reading the same bytes in one run. At batch 2 only a kernel with all
** of down's weights in flight before its barrier could (72-74%).
** The one shape with no barrier and no wait, measured in a scratch copy and not built: split
** along the intermediate dimension, a block takes (expert, KT of its 256 rows), reads those
** gate/up rows and the same KT columns of down (contiguous in a k-tile-major layout), and
** adds its partial 7168 outputs into an fp32 y with atomics, the last block converting y.
** Its loads alone, no arithmetic: 8.7 us with KT = 4 on 512 blocks, 12.1 with KT = 8 on 256
** (the bare read 7.7 on 528 blocks, 11.0 on 264); with the atomics (float4) 25.7 to 32.2 us:
** each output word takes 128 to 512 adds in turn at L2.
** Where gate_up's loop loses to a bare read, from a copy of it run alone at batch 8's size
** (1888 tiles, 108 MB, 2 blocks per SM, G = 128; H200, CUDA 13.0): the loop as it is here
** takes 44.7 us (45.8 before its loads were trimmed; 42.8 with the last stage's guards
** peeled off, at 106 registers, but that peeling made the kernel itself 5-9% slower at
** batches 1 to 16: more spills at 128 registers); with its loads only (no conversion, no
** MMA) 27.2 us (4.0 TB/s); with its conversion and MMAs only, on register data, 24.4 us.
** Each alone is below the HBM time, together they nearly add up: a warp waits for its
** loads, then converts, and 16 warps a SM (128 registers each) do not hide one behind the
** other. The variants below are set against the 42.8 us loop. Per 512-byte chunk a warp
** issues about 85 instructions, 57 of them conversion and MMA (12 shifts, 16 LOP3, 16 bf16
** subtractions, 4 MMAs, the scale); the SM issues half the cycles. Measured the same way and
** not kept:
**   - ptxas puts every load of both stages on one scoreboard, so a stage's first use also
**     waits for the next stage's loads; but rounds (all loads of 7 chunks, then their MMAs,
**     127 registers) took 42.4 us, rounds of 4 45.9, and reading a stage's registers before
**     issuing the next 45.7: that is not what holds the loop back;
**   - a third register stage (6 chunks in flight): 47.2 us; x read from L1 one chunk ahead
**     instead of staged (68 registers, 3 blocks per SM): 40.0 us, but at batch 1's size
**     9.1 us against 7.0 (x is cold in L1 there), and in the kernel itself (80 registers,
**     100-170 bytes of spills even with down on one tile a warp) 18-27% slower at batches
**     1 to 16; no block-wide barrier per tile (the last warp of 8 to store its fragment
**     sums the tile): 43.3 us;
**   - each warp's weights and scales through a cp.async ring of 4 or 8 chunks: 55-57 us;
**     warp-specialized, producer warps (1, 2, 4 or 8 a block) filling the consumers' rings
**     with cp.async and an mbarrier pair per slot: 65-100 us;
**   - the -136 of the conversion moved into each chunk's accumulator start, from a table of
**     -136 * (the chunk's x sums) each warp builds once: 45.3 us (and 8.4 against 6.9 us at
**     batch 1's size); dropping the -136 outright (wrong results: the most any such trick
**     could win) took 7% off a copy of the loop.
** The one change measured to cut the conversion's cost by a third: the nibbles kept as u8
** (two LOP3 and a shift a word instead of eleven instructions) in integer MMAs (m16n8k32,
** u8 x s8) against x split into two s8 halves per chunk, the int32 sums scaled once a
** group: conversion and MMAs only, 16.3 us against 24.4 at batch 8's size, 3.2 against 4.2
** at batch 1's. The packed order needs no change for it (a word's low and high nibbles are
** 4 k of rows g and g + 8, the A fragment's bytes, with x's bytes permuted to match): the
** whole loop, loads included, on x split beforehand into two s8 planes with per-group sums,
** matched the bf16 loop to 2e-7 and took 39.1 us against 44.9 (7% less at batch 1's size);
** two row tiles sharing x, 37.9. But the same loop with guards on its last stage (92
** registers instead of 96) took 48.0: the gain rides on ptxas's schedule, and the kernel
** would also have to quantize x, and h after the barrier, inside the launch. Not built.
** Measured the same way and not kept either (sixth session):
**   - each block asking L2 for its next tile, or its whole run, with one
**     cp.async.bulk.prefetch.L2: 2-15% slower at every size;
**   - the copy engine feeding a ring: one producer lane a block streams pieces of 16 chunks
**     and their scales (cp.async.bulk, one mbarrier pair a slot) into 3 shared-memory slots,
**     8 consumer warps read them, 72 registers, 3 blocks a SM: 36.4 us (at 2 blocks a SM
**     40.7-41.2, and 46.3 with the scales read from global memory; larger rings slower,
**     56-chunk pieces no faster), but 9.4 against 7.3 at batch 1's size, where the ring's
**     fill shows. Built into a whole kernel (gate_up through the ring, each warp's
**     activations loaded a piece ahead; down as grouped_moe's general path in stages of one
**     chunk, to fit 72 registers): 86.7 us at batch 8 against 69.6, 19.0 at batch 1 against
**     13.6. Its gate_up alone took 48.3 us against about 47 here (56-66 while each piece
**     divided to find its tile and loaded x only where used: x of 8 tokens does not stay in
**     the L1 that 3 blocks of ring leave); the ring's copies alone, no conversion or MMA,
**     29.1 us, launch and barrier included: the consumers, not the copies, set its pace. Its
**     down alone took 40.2 us against about 26; down through the ring as well, a copy per
**     (slot, row tile) (2 KB of weights, 64 bytes of scales), took 70 us: the copy engine
**     moved about 6 such copies a microsecond per SM. Bulk copies alone stream HBM into
**     shared memory at 3.5 TB/s at most (8 KB copies, 108 MB).
** Seventh session: bench/w4a16_gate_up_sim.cu keeps these comparisons runnable (each way is
** checked against a double-precision reference before it is timed; events around single
** launches, so launch included and every figure a few us above a graph's). Medians on an H200
** (driver 580.159.04, CUDA 13.0), gate_up at batch 8's size (1888 tiles) / batch 1's (256):
**   bare read 31.6 / 10.1 us; this loop (bf16, 89 registers, 2 blocks a SM) 51.9-52.5 /
**     12.5-13.0; the same compiled for 3 blocks a SM (78 registers) 48.1-48.4 / 14.9-15.3;
**   the integer path on the same two stages (80 registers, 3 blocks a SM) 39.0-39.1 / 13.0;
**     held to 2 blocks a SM by reserved shared memory 49.2-49.6 / 11.4;
**   a copy-engine ring alone (3 slots of 8 KB) 32.9 / 10.6-11.2; with integer consumers
**     reading x from L1 42.4-43.0 / 15.6-15.9; with x copied into shared memory a tile ahead
**     41.6-42.2 / 15.3. (In a scratch copy not kept, the same consumers on constant x in
**     registers, 40 registers and 5 blocks a SM, kept the copy's pace: 33.6-35.5 us.)
** So at batch 8's size the loop loses a quarter to the bf16 conversion and the occupancy
** together, and neither alone wins more than 8%: the integer path at 3 blocks a SM is 25%
** faster, while at batch 1's size 2 blocks a SM stay better. Built whole and not kept (same
** H200; the kernel_variant runner, graphs of 64 launches, PDL): a kernel of this one's shape
** at 80 registers and 3 blocks a SM (72 bytes of spills at one token tile, 128 at two), x
** quantized one warp a (token, group) after the routing, h one warp a (pair, group) with its
** routing weight in its scale, a grid barrier after each, so that down adds every slot into
** one sum. It passed the gate (error 0.0023-0.0037 of the largest output, as this kernel's)
** and took 21.3 / 33.3 / 49.9 / 80.5 / 177.7 us at batches 1 / 2 / 4 / 8 / 16 against 13.8 /
** 22.7 / 39.1 / 70.6 / 128.5 here. At batch 8, gate_up alone took 47.6 us and down alone 43.9
** (here about 47 and 26; there each warp took its slots, 4 chunks each, one round trip after
** another), and neither 13.4 (11.4 at batch 1: the two quantizing phases and three barriers
** cost 9 to 11 us above this launch's 2.5 us floor, 792 blocks at 38 registers). Reading x's
** planes through L1 instead of L2 changed nothing, in the kernel (47.7 against 47.6 us) or in
** the copy (39.0 against 38.1).
** Eighth session, not kept either: the same integer gate_up (80 registers, 3 blocks a SM)
** as a launch of its own, with this kernel's down phase (128 registers, 2 blocks a SM) as a
** second launch queued behind it with PDL, so each phase has its own register budget and h
** stays bf16 (no quantizing phase for it); x quantized in the first launch behind a grid
** barrier, or in a small third launch before it (the same times). Correct (error 0.0023-
** 0.0042 of the largest output) and slower at every batch: 17.6 / 28.7 / 43.8 / 74.1 / 150.8
** us at batches 1 / 2 / 4 / 8 / 16 against 13.8 / 22.7 / 38.8 / 70.2 / 128.3 here. Its first
** launch alone (y zeroed instead of down): 11.1 / 19.2 / 28.7 / 48.1 / 99.8 us, of which 4.2
** to 8.1 with no MMAs (routing, x quantized, y zeroed): so in the kernel the integer gate_up
** loop is about this one's speed at batch 8 (about 42 against 44.7 us) and slower at batch 16
** (two token tiles, 56 bytes of spills), far from the simulator's 25%, and the second launch
** adds about 2 us over this kernel's barrier (74.1 - 48.1 = 26.0 us for down, 23.7 here).
** Also not kept (eighth session): down's weights through a cp.async ring in each warp's shared
** memory (10 KB a warp, 80 KB a block: two units of the block's row tiles' weights and scales,
** the first ones copied before the grid barrier while the block waits for the slowest gate_up,
** each next one issued once the unit two back is multiplied). Correct (the same errors, G =
** 128 and 32) but 1-3% slower at every batch: 72.4 against 70.2 us at batch 8. The 80 KB
** alone, allocated and unused, cost as much (58.7 against 60.5% of the copy ceiling at batch
** 8: the shared memory comes out of L1); with 40 KB a block the ring came out even. With each
** unit's h loaded a unit ahead as well: 73.8 us; gate_up's x read through L2 instead of L1:
** 73.4 with the ring, 70.7 without. So down's time is not its weights' latency: weights already
** in shared memory when the barrier opens did not make it faster.
** Tried on an H200 (CUDA 13.0) and not kept:
**   - asking L2 for all of a block's down weights at the start (the requests queue ahead of
**     gate_up's: 1 us slower at batch 1), or for each warp's first down tiles just before
**     the wait (no gain), or the same after one real load per tile to warm the TLB (2 us
**     slower: the blocks reach the wait later); the first two down units of each warp
**     loaded into registers before the wait (no gain); each warp's first down unit copied
**     into shared memory (cp.async) during its last gate_up tile (5% slower at batch 1) or
**     just before the wait (2% slower);
**   - weights loaded with an L2 evict-first policy, to keep ids, x and h resident (no gain);
**   - 8 gate_up chunks in flight per warp instead of 4 (no gain); two stages of three chunks
**     instead of two (2% slower at batch 1); 3 blocks per SM at 80 registers (spills: 30%
**     slower at batch 1);
**   - no grid-wide barrier: blocks take (expert, 1/32 of its gate_up and down rows) units,
**     wait only for their expert's 32 gate_up parts, and write fp32 partials that the last
**     block to finish a row range sums in id order (deterministic): 18.0 against 17.3 us at
**     batch 1 and 229 against 189 us at batch 16, with the same loads (down alone, with no
**     wait at all, took 9 us at batch 1: one unit's 14 tiles are too little work per block);
**   - a warp's down slots as one stream of chunks, the next slot's loads in flight during
**     this one's MMAs (10-15% slower at every batch); at batch 16, a slot whose tokens all
**     sit in one token tile run with one tile (spills at 128 registers: 40% slower);
**   - gate_up chunks dealt to the warps in turn (warp w takes w, w + 8, ...: a block reads
**     4 KB runs, not eight 7 KB streams): 2-5% slower at batches 1 to 8; the chunk order
**     rotated by block index, to spread the reads of x and h over L2 lines: 2-15% slower;
**   - the -136 of the INT4 conversion folded into an MMA with a constant A (16 bf16
**     subtractions less per chunk, 4 MMAs more in the chain): 13-17% slower, so the MMA
**     chain's latency, not issue slots, is what a warp waits for; two chains per chunk, or
**     no per-chunk guard: within 1%; x loaded when used rather than a stage ahead with the
**     weights: 5-15% slower, and with three stages of weights in registers no better;
**   - each warp's weights, scales and x through its own cp.async ring in shared memory (3
**     stages of 2 chunks, 80 KB a block, registers freed): 4-9% slower; with 2 stages 7-11%;
**   - a warp's gate_up tiles as one stream of chunks, the next tile's first loads in flight
**     during a tile's epilogue: 18-26% slower (the cursor kept per chunk in the loop);
**   - where the 72 us of batch 8 go, from builds that leave parts out (same call, G = 128):
**     gate_up alone 47 us, down alone 26 (each with the 2.3 us of launch, routing and
**     barrier); the weight loads without conversion and MMAs 52 us (the same bytes read bare:
**     41); conversion and MMAs without the weight loads 54; neither 25. Loads and compute
**     each take three quarters of the time and overlap only in part. ncu (clocks not
**     locked, 1.8 GHz): DRAM at 47% of its peak (2.27 TB/s), issue slots busy half the
**     cycles, 3.9 warps per scheduler of which 0.87 eligible. Its stall samples: 25% on the
**     weight loads (the first conversion of a stage), 21% on fixed latencies (the MMA
**     chain), 18% at barriers: 8.8% after the grid-wide barrier, where blocks with 7 gate_up
**     tiles wait for those with 8 (1888 tiles on 264 blocks), 4.6% at the per-tile sum and
**     2.6% at down's;
**   - so the remainder tiles cut along K: q = NA / C whole tiles a block, each of the r
**     tiles left cut into C / r parts, one per block, the parts' fp32 sums in scratch words
**     after the barrier's and added in part order by the block that brought the last part
**     (at most 0.8 of a tile, about 5 us, to win at batch 8): 3% slower at batch 8, and the
**     code alone, where it does not cut (batches 1 to 4), made those 3% slower too;
**   - one block per SM with a cp.async ring of 16 KB per warp (8 warps cannot issue fast
**     enough: 2x slower); TMA bulk copies (cp.async.bulk) into a shared-memory ring of 8 KB
**     slots (0.7 TB/s: each copy costs the issuing thread and the copy engine 0.1 to 0.3 us,
**     and each slot waited on an L2 round trip for x), or of each block's whole share at
**     batch 1 (170 KB of 227 KB: 18 to 23 us; 12 to 27 copies per SM take 1.6 to 3.8 us to
**     issue before the last one is under way).
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"
#include "w4a16/moe_route.cuh"

namespace {
using namespace w4;

/* Blocks per SM the kernel is compiled for: 128 registers a thread (nvcc 13.0, sm_90: no
** spills with one token tile at G = 32, 24-64 bytes of spill stores in the others). */
constexpr int kMinBlocks = 2;
static_assert(kThreads >= W4A16_MAX_PAIRS, "one thread per (token, expert) pair");

template <int NT>
struct MoeShared {
  FragSum<NT> red[2]; /* tile sums, double-buffered */
  MoeRoute r;
};

/* A block's and a warp's share of a launch (moe_kernel, and its skeleton): gate_up tiles
** [a0, a1) of the batch's nexp experts, down row tiles [b0, b1), and in a gate_up tile the
** warp's K chunks [c0, c1). */
struct MoeShare {
  int a0, a1, b0, b1, c0, c1;
};
__device__ __forceinline__ MoeShare moe_share(const w4a16_moe &a, int nexp, int warp) {
  const int C = gridDim.x, b = blockIdx.x, NA = nexp * (a.inter / 8), tilesB = a.hidden / 16, chunksA = a.hidden / 64;
  return MoeShare{(int)((long long)b * NA / C), (int)((long long)(b + 1) * NA / C),
                  (int)((long long)b * tilesB / C), (int)((long long)(b + 1) * tilesB / C),
                  warp * chunksA / kWarps, (warp + 1) * chunksA / kWarps};
}

/* gate_up tile i (slot i / tilesA, row tile i % tilesA): this lane's first weight word and
** scale pair; returns the slot. */
__device__ __forceinline__ int gate_up_tile(const w4a16_moe &a, int gshift, const MoeRoute &r, int i, int lane,
                                            const uint4 **wt, const uint32_t **st) {
  const int tilesA = a.inter / 8, s = i / tilesA, rt = i - s * tilesA, e = r.slot_exp[s];
  *wt = w13_tile(a, e, rt) + lane;
  *st = s13_tile(a, gshift, e, rt) + (lane >> 2);
  return s;
}

template <int NT, bool POST>
__global__ void __launch_bounds__(kThreads, kMinBlocks) moe_kernel(w4a16_moe a, int gshift) {
  __shared__ MoeShared<NT> sh;
  /* Launched with PDL, ids, weights and x may come from the kernel before: wait for it
  ** before reading them (a no-op otherwise), and let the next launch queue up behind us. */
  pdl_wait();
  pdl_launch_dependents();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2;
  moe_route(a, sh.r);

  /* This block's tiles of each phase, and this warp's K chunks of a gate_up tile. */
  const int nexp = sh.r.nexp, C = gridDim.x, I = a.inter, chunksB = I / 64;
  const MoeShare w = moe_share(a, nexp, warp);
  const int a0 = w.a0, a1 = w.a1, b0 = w.b0, b1 = w.b1, c0 = w.c0, c1 = w.c1;

  const uint4 *wt;
  const uint32_t *st;
  int par = 0;

  for (int i = a0; i < a1; i++) {
    const int s = gate_up_tile(a, gshift, sh.r, i, lane, &wt, &st), rt = i - s * (I / 8);
    const __nv_bfloat16 *xr[NT];
    float acc[NT][4];
    gate_up_rows<NT>(static_cast<const __nv_bfloat16 *>(a.x), a.hidden, sh.r, s, lane, xr);
#pragma unroll
    for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
    /* one token tile at a time; a second pass only for an expert with more than 8 tokens */
#pragma unroll
    for (int j = 0; j < NT; j++)
      if (j == 0 || __popc(sh.r.tokmask[s]) > 8) {
        const __nv_bfloat16 *xr1[1] = {xr[j]};
        tile_mma<1, POST>(wt, st, gshift, xr1, c0, c1, &acc[j]);
      }
    frag_store(sh.red[par], warp, lane, acc);
    __syncthreads();
    store_h<NT>(a, sh.r, sh.red[par], 0, kWarps, s, rt);
    par ^= 1;
  }

  /* Every block's h is visible before any down product reads it. */
  __syncthreads();
  if (tid == 0) grid_sync(a.sync, (unsigned)C);
  __syncthreads();

  /* down: the block's row tiles at once where they fit (ks warps on each: at batch 1 a
  ** block has one or two), each warp taking slots kk, kk + ks, ... of its tile. */
  const int per_round = min(max(b1 - b0, 1), kWarps), ks = kWarps / per_round;
  const int tl = warp / ks, kk = warp - tl * ks;
  if (b1 - b0 == 2) {
    /* Two row tiles: every warp takes slots warp, warp + 8, ... of both at once, a pass per
    ** token tile that holds tokens of the slot; the warp's sums stay in its rows of red, not
    ** in registers (the register sums spilled at NT = 2). */
#pragma unroll
    for (int e4 = 0; e4 < NT * 4; e4++) sh.red[0].v[warp][e4][lane] = sh.red[1].v[warp][e4][lane] = 0.f;
    for (int s = warp; s < nexp; s += kWarps) {
      const int e = sh.r.slot_exp[s];
      const unsigned mask = sh.r.tokmask[s];
      const __nv_bfloat16 *xr[NT];
      float wgt[NT][2];
      down_rows<NT>(static_cast<const __nv_bfloat16 *>(a.h), I, sh.r, s, lane, xr, wgt);
#pragma unroll
      for (int j = 0; j < NT; j++)
        if ((mask >> (8 * j)) & 0xffu) {
          const __nv_bfloat16 *xr1[1] = {xr[j]};
          float p0[1][4] = {{0.f, 0.f, 0.f, 0.f}}, p1[1][4] = {{0.f, 0.f, 0.f, 0.f}};
          tile_mma_pair<POST, true>(w2_tile(a, e, b0) + lane, s2_tile(a, gshift, e, b0) + g, w2_tile(a, e, b0 + 1) + lane,
                                    s2_tile(a, gshift, e, b0 + 1) + g, gshift, xr1, 0, chunksB, p0, p1);
#pragma unroll
          for (int q = 0; q < 4; q++) {
            sh.red[0].v[warp][j * 4 + q][lane] += wgt[j][q & 1] * p0[0][q];
            sh.red[1].v[warp][j * 4 + q][lane] += wgt[j][q & 1] * p1[0][q];
          }
        }
    }
    __syncthreads();
    store_y<NT>(a, sh.red[0], 0, kWarps, b0);
    store_y<NT>(a, sh.red[1], 0, kWarps, b0 + 1);
    return;
  }
  for (int r0 = b0; r0 < b1; r0 += per_round) {
    const int rt = r0 + tl;
    float acc[NT][4];
#pragma unroll
    for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
    for (int s = kk; tl < per_round && rt < b1 && s < nexp; s += ks) {
      const int e = sh.r.slot_exp[s];
      const __nv_bfloat16 *xr[NT];
      float wgt[NT][2], part[NT][4];
      down_rows<NT>(static_cast<const __nv_bfloat16 *>(a.h), I, sh.r, s, lane, xr, wgt);
#pragma unroll
      for (int j = 0; j < NT; j++) part[j][0] = part[j][1] = part[j][2] = part[j][3] = 0.f;
      const unsigned mask = sh.r.tokmask[s];
#pragma unroll
      for (int j = 0; j < NT; j++)
        if ((mask >> (8 * j)) & 0xffu) {
          const __nv_bfloat16 *xr1[1] = {xr[j]};
          tile_mma<1, POST, true>(w2_tile(a, e, rt) + lane, s2_tile(a, gshift, e, rt) + g, gshift, xr1, 0, chunksB,
                                  &part[j]);
        }
      add_weighted<NT>(acc, wgt, part);
    }
    frag_store(sh.red[par], warp, lane, acc);
    __syncthreads();
    for (int t = 0; t < per_round && r0 + t < b1; t++) store_y<NT>(a, sh.red[par], t, ks, r0 + t);
    par ^= 1;
  }
}

/* The same launch doing none of the work: routing, the barrier, nothing else. What is left
** of grouped_moe's time above it and above a bare read of its bytes is what the kernel
** itself costs (w4a16_moe_floor). */
__global__ void __launch_bounds__(kThreads, kMinBlocks) floor_kernel(w4a16_moe a) {
  __shared__ MoeRoute r;
  pdl_wait();
  pdl_launch_dependents();
  moe_route(a, r);
  if (threadIdx.x == 0) grid_sync(a.sync, gridDim.x);
}

/* The same launch again with every load and no arithmetic: the routing, the weight words
** and scales of each gate_up tile as this block's warps read them (moe_kernel's runs and
** K chunks), then the (row tile, slot) products of down the block owns, a warp each, their
** words read in the same order. No conversion, no MMA, no h or y written (a word of y only
** if the loads' XOR hits a constant, so that none can be dropped). Where the grid-wide
** barrier goes (SYNC, w4a16.h's W4A16_SKEL_*): between the phases as in moe_kernel (what
** the kernel takes above this is arithmetic its loads did not hide, and this is the most a
** kernel of this shape could reach); after every load (the most a kernel could reach that
** had all of down's weights in flight before its barrier); or nowhere (the most any kernel
** could reach that reads these bytes in this order once it has routed). */
template <int SYNC>
__global__ void __launch_bounds__(kThreads, kMinBlocks) skeleton_kernel(w4a16_moe a, int gshift) {
  __shared__ MoeRoute r;
  pdl_wait();
  pdl_launch_dependents();
  moe_route(a, r);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int nexp = r.nexp, chunksB = a.inter / 64;
  const MoeShare w = moe_share(a, nexp, warp);
  uint32_t v = 0;
  for (int i = w.a0; i < w.a1; i++) {
    const uint4 *wt;
    const uint32_t *st;
    gate_up_tile(a, gshift, r, i, lane, &wt, &st);
#pragma unroll 4
    for (int cc = w.c0; cc < w.c1; cc++) {
      uint4 w;
      uint32_t sc;
      load_w_at(wt, st, gshift, cc, w, sc);
      v ^= w.x ^ w.y ^ w.z ^ w.w ^ sc;
    }
  }
  if (SYNC == W4A16_SKEL_BETWEEN) {
    __syncthreads();
    if (tid == 0) grid_sync(a.sync, gridDim.x);
    __syncthreads();
  }
  for (int p = warp; p < (w.b1 - w.b0) * nexp; p += kWarps) {
    const int rt = w.b0 + p / nexp, e = r.slot_exp[p % nexp];
    const uint4 *wt = w2_tile(a, e, rt) + lane;
    const uint32_t *st = s2_tile(a, gshift, e, rt) + (lane >> 2);
#pragma unroll 4
    for (int cc = 0; cc < chunksB; cc++) {
      uint4 w;
      uint32_t sc;
      load_w_at(wt, st, gshift, cc, w, sc);
      v ^= w.x ^ w.y ^ w.z ^ w.w ^ sc;
    }
  }
  if (SYNC == W4A16_SKEL_LAST) {
    __syncthreads();
    if (tid == 0) grid_sync(a.sync, gridDim.x);
  }
  if (v == 0x2545f491u) static_cast<__nv_bfloat16 *>(a.y)[tid] = __float2bfloat16(1.f);
}

template <int NT, bool POST>
cudaError_t grid(int *blocks) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moe_kernel<NT, POST>, kThreads, 0);
  if (e != cudaSuccess) return e;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  *blocks = sms * per_sm;
  return cudaSuccess;
}

template <int NT, bool POST>
cudaError_t launch(const w4a16_moe *a, int pdl, cudaStream_t s) {
  int blocks = 0;
  cudaError_t e = grid<NT, POST>(&blocks);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute attr[1];
  moe_launch_config(&cfg, attr, blocks, kThreads, 0, pdl, s);
  return cudaLaunchKernelEx(&cfg, moe_kernel<NT, POST>, *a, w4_log2(a->group));
}

} /* namespace */

extern "C" cudaError_t w4a16_grouped_moe(const w4a16_moe *a, int pdl, cudaStream_t s) {
  if (w4a16_moe_check(a)) return cudaErrorInvalidValue;
  const bool post = w4a16_post_scale(a->group);
  if (w4a16_token_tiles(a->tokens) == 1) return post ? launch<1, true>(a, pdl, s) : launch<1, false>(a, pdl, s);
  return post ? launch<2, true>(a, pdl, s) : launch<2, false>(a, pdl, s);
}

/* A floor's kernel launched on grouped_moe's grid and as it is (pdl as there). */
template <typename... P, typename... A>
static cudaError_t launch_floor(const w4a16_moe *a, int pdl, cudaStream_t s, void (*kernel)(P...), A... args) {
  if (w4a16_moe_check(a)) return cudaErrorInvalidValue;
  int blocks = 0;
  cudaError_t e = w4a16_moe_grid(a->tokens, a->group, &blocks);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute attr[1];
  moe_launch_config(&cfg, attr, blocks, kThreads, 0, pdl, s);
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

extern "C" cudaError_t w4a16_moe_floor(const w4a16_moe *a, int pdl, cudaStream_t s) {
  return launch_floor(a, pdl, s, floor_kernel, *a);
}

extern "C" cudaError_t w4a16_moe_skeleton(const w4a16_moe *a, int sync, int pdl, cudaStream_t s) {
  const int gshift = w4_log2(a->group);
  switch (sync) {
  case W4A16_SKEL_BETWEEN: return launch_floor(a, pdl, s, skeleton_kernel<W4A16_SKEL_BETWEEN>, *a, gshift);
  case W4A16_SKEL_LAST: return launch_floor(a, pdl, s, skeleton_kernel<W4A16_SKEL_LAST>, *a, gshift);
  case W4A16_SKEL_NONE: return launch_floor(a, pdl, s, skeleton_kernel<W4A16_SKEL_NONE>, *a, gshift);
  }
  return cudaErrorInvalidValue;
}

extern "C" cudaError_t w4a16_moe_grid(int tokens, int group, int *blocks) {
  const bool post = w4a16_post_scale(group);
  if (w4a16_token_tiles(tokens) == 1) return post ? grid<1, true>(blocks) : grid<1, false>(blocks);
  return post ? grid<2, true>(blocks) : grid<2, false>(blocks);
}

cudaError_t w4a16_moe_attrs(int m, int group, cudaFuncAttributes *out) {
  const bool post = w4a16_post_scale(group), one = w4a16_token_tiles(m) == 1;
  if (one) return post ? cudaFuncGetAttributes(out, moe_kernel<1, true>) : cudaFuncGetAttributes(out, moe_kernel<1, false>);
  return post ? cudaFuncGetAttributes(out, moe_kernel<2, true>) : cudaFuncGetAttributes(out, moe_kernel<2, false>);
}
