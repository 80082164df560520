/* Per-process mode without a GPU: rank and size from each launcher's variables, the rendezvous
** file, and rank 0 merging another rank's document into its results. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "runners/nccl_gather.h"
#include "xp.h"

/* A fake environment for xp_nccl_launch_from_env. */
static const char *const *fake;
static char *fake_getenv(const char *key) {
  for (int i = 0; fake && fake[i]; i += 2)
    if (strcmp(fake[i], key) == 0) return (char *)fake[i + 1];
  return NULL;
}

static int launch(const char *const *env, xp_nccl_launch *l) {
  fake = env;
  xp_error_quiet(1);
  int rc = xp_nccl_launch_from_env(fake_getenv, l);
  xp_error_quiet(0);
  return rc;
}

static void test_launchers(void) {
  xp_nccl_launch l;
  static const char *const none[] = {"HOME", "/root", NULL};
  CHECK_EQ_INT(launch(none, &l), 1);
  static const char *const torchrun[] = {"RANK", "3", "WORLD_SIZE", "8", "LOCAL_RANK", "3",
                                         "TORCHELASTIC_RUN_ID", "abc", NULL};
  CHECK_EQ_INT(launch(torchrun, &l), 0);
  CHECK_EQ_INT(l.rank, 3);
  CHECK_EQ_INT(l.size, 8);
  CHECK_EQ_INT(l.local_rank, 3);
  CHECK_EQ_STR(l.source, "RANK/WORLD_SIZE");
  CHECK_EQ_STR(l.job, "torchrun:abc");
  CHECK_EQ_INT(l.job_unique, 0); /* the user's --rdzv-id: another job may give the same */
  static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK", "9", "OMPI_COMM_WORLD_SIZE", "16",
                                     "OMPI_COMM_WORLD_LOCAL_RANK", "1", NULL};
  CHECK_EQ_INT(launch(ompi, &l), 0);
  CHECK_EQ_INT(l.rank, 9);
  CHECK_EQ_INT(l.local_rank, 1);
  CHECK_EQ_STR(l.job, "");
  static const char *const slurm[] = {"SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID", "1",
                                      "SLURM_JOB_ID", "4242", "SLURM_STEP_ID", "0", NULL};
  CHECK_EQ_INT(launch(slurm, &l), 0);
  CHECK_EQ_INT(l.rank, 5);
  CHECK_EQ_STR(l.source, "SLURM_*");
  CHECK_EQ_STR(l.job, "slurm:4242.0");
  CHECK_EQ_INT(l.job_unique, 1);
  /* Inside a Slurm batch script (no srun per launch), the Slurm id is every launch's: mpirun's
  ** own id names its launch alone, torchrun's run id names none */
  static const char *const mpirun_in_batch[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                                                "OMPI_MCA_ess_base_jobid", "3129671681", "SLURM_JOB_ID", "4242", NULL};
  CHECK_EQ_INT(launch(mpirun_in_batch, &l), 0);
  CHECK_EQ_STR(l.job, "ompi:3129671681");
  CHECK_EQ_INT(l.job_unique, 1);
  static const char *const torchrun_in_batch[] = {"RANK", "1", "WORLD_SIZE", "2", "TORCHELASTIC_RUN_ID", "none",
                                                  "SLURM_JOB_ID", "4242", NULL};
  CHECK_EQ_INT(launch(torchrun_in_batch, &l), 0);
  CHECK_EQ_STR(l.job, "torchrun:none");
  CHECK_EQ_INT(l.job_unique, 0);
  static const char *const no_local[] = {"PMI_RANK", "1", "PMI_SIZE", "2", NULL};
  CHECK_EQ_INT(launch(no_local, &l), 0);
  CHECK_EQ_INT(l.local_rank, 1); /* one node assumed */
  static const char *const half[] = {"RANK", "0", NULL};
  CHECK_EQ_INT(launch(half, &l), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "WORLD_SIZE") != NULL);
  static const char *const beyond[] = {"RANK", "2", "WORLD_SIZE", "2", NULL};
  CHECK_EQ_INT(launch(beyond, &l), XP_EXIT_USAGE);
  static const char *const junk[] = {"RANK", "x", "WORLD_SIZE", "2", NULL};
  CHECK_EQ_INT(launch(junk, &l), XP_EXIT_USAGE);
}

static void test_rendezvous(const char *dir) {
  char *path = xp_asprintf("%s/rdv", dir);
  xp_nccl_launch l0 = {0, 2, 0, "RANK/WORLD_SIZE", "torchrun:job1", 0}, l1 = l0;
  l1.rank = l1.local_rank = 1;
  unsigned char id[XP_NCCL_RDV_BYTES], got[XP_NCCL_RDV_BYTES];
  for (int i = 0; i < XP_NCCL_RDV_BYTES; i++) id[i] = (unsigned char)(i * 37 + 11);
  /* A stale rank file from an earlier job is removed when rank 0 publishes. */
  char *stale = xp_asprintf("%s.rank1", path);
  FILE *f = fopen(stale, "w");
  if (f) { fputs("{}", f); fclose(f); }
  CHECK_EQ_INT(xp_nccl_rdv_publish(path, &l0, id, "11111111-2222-3333-4444-555555555555"), 0);
  CHECK(access(stale, F_OK) != 0);
  char leader[64] = "";
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &l1, (double)time(NULL) - 60, 5, got, leader), 0);
  CHECK(memcmp(id, got, sizeof id) == 0);
  CHECK_EQ_STR(leader, "11111111-2222-3333-4444-555555555555");
  /* Another job's file is not taken: the wait times out and fails. */
  xp_nccl_launch other = l1;
  snprintf(other.job, sizeof other.job, "torchrun:job2");
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &other, 0, 0.2, got, leader), XP_EXIT_FAILED);
  CHECK(strstr(xp_last_error(), "within") != NULL);
  /* Without job ids, a file older than this job's start is not taken either. */
  xp_nccl_launch plain = l1;
  plain.job[0] = 0;
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &plain, (double)time(NULL) + 3600, 0.2, got, leader), XP_EXIT_FAILED);
  /* A different world size is an error at once. */
  xp_nccl_launch bigger = l1;
  bigger.size = 4;
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &bigger, 0, 5, got, leader), XP_EXIT_FAILED);
  CHECK(strstr(xp_last_error(), "2 ranks") != NULL);
  /* Rank 0 waiting for a rank that never reports. */
  cJSON *docs[2] = {NULL, NULL};
  CHECK_EQ_INT(xp_nccl_rdv_collect(path, 2, 0.2, docs), XP_EXIT_FAILED);
  CHECK(strstr(xp_last_error(), "rank 1") != NULL);
  xp_error_quiet(0);
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "rank", 1);
  CHECK_EQ_INT(xp_nccl_rdv_put_rank(path, 1, doc), 0);
  CHECK_EQ_INT(xp_nccl_rdv_collect(path, 2, 5, docs), 0);
  CHECK(docs[1] && xp_spec_int(docs[1], "rank", -1) == 1);
  cJSON_Delete(docs[1]);
  cJSON_Delete(doc);
  xp_nccl_rdv_cleanup(path, 2);
  CHECK(access(path, F_OK) != 0);
  CHECK(access(stale, F_OK) != 0);
  free(stale);
  free(path);
}

/* torchrun without --rdzv-id sets TORCHELASTIC_RUN_ID=none (torch/distributed/run.py, PyTorch
** 2.x) in every job: an earlier job's rendezvous file, left by a crash, carries the same id, and
** its NCCL ids would send this rank to a communicator nobody sets up. Older than this job's
** start, it is not taken; a scheduler's job id, which no other job has, still vouches for one. */
static void test_rendezvous_repeated_job_id(const char *dir) {
  char *path = xp_asprintf("%s/rdv-repeat", dir);
  static const char *const rank0[] = {"RANK", "0", "WORLD_SIZE", "2", "TORCHELASTIC_RUN_ID", "none", NULL};
  static const char *const rank1[] = {"RANK", "1", "WORLD_SIZE", "2", "TORCHELASTIC_RUN_ID", "none", NULL};
  xp_nccl_launch l0, l1;
  CHECK_EQ_INT(launch(rank0, &l0), 0);
  CHECK_EQ_INT(launch(rank1, &l1), 0);
  unsigned char id[XP_NCCL_RDV_BYTES] = {7}, got[XP_NCCL_RDV_BYTES];
  char leader[64] = "";
  CHECK_EQ_INT(xp_nccl_rdv_publish(path, &l0, id, "earlier-job"), 0);
  struct timespec old[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
  CHECK_EQ_INT(utimensat(AT_FDCWD, path, old, 0), 0);
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &l1, (double)time(NULL) - 60, 0.2, got, leader), XP_EXIT_FAILED);
  xp_error_quiet(0);
  CHECK(strstr(xp_last_error(), "within") != NULL);
  static const char *const slurm1[] = {"SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_JOB_ID", "4242",
                                       "SLURM_STEP_ID", "0", NULL};
  xp_nccl_launch s0, s1;
  CHECK_EQ_INT(launch(slurm1, &s1), 0);
  s0 = s1;
  s0.rank = 0;
  CHECK_EQ_INT(xp_nccl_rdv_publish(path, &s0, id, "this-job"), 0);
  CHECK_EQ_INT(utimensat(AT_FDCWD, path, old, 0), 0);
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &s1, (double)time(NULL) - 60, 5, got, leader), 0);
  CHECK_EQ_STR(leader, "this-job");
  xp_nccl_rdv_cleanup(path, 2);
  free(path);
}

/* torchrun takes any --rdzv-id (torch/distributed/run.py: type=str): one with a space is
** still one word of the rendezvous file, which the other ranks read word by word. */
static void test_rendezvous_spaced_job_id(const char *dir) {
  char *path = xp_asprintf("%s/rdv-spaced", dir);
  static const char *const rank0[] = {"RANK", "0", "WORLD_SIZE", "2", "TORCHELASTIC_RUN_ID", "sweep 3", NULL};
  static const char *const rank1[] = {"RANK", "1", "WORLD_SIZE", "2", "TORCHELASTIC_RUN_ID", "sweep 3", NULL};
  xp_nccl_launch l0, l1;
  unsigned char id[XP_NCCL_RDV_BYTES] = {9}, got[XP_NCCL_RDV_BYTES];
  char leader[64] = "";
  CHECK_EQ_INT(launch(rank0, &l0), 0);
  CHECK_EQ_INT(launch(rank1, &l1), 0);
  CHECK_EQ_INT(xp_nccl_rdv_publish(path, &l0, id, "spaced-job"), 0);
  CHECK_EQ_INT(xp_nccl_rdv_wait(path, &l1, (double)time(NULL) - 60, 5, got, leader), 0);
  CHECK_EQ_STR(leader, "spaced-job");
  CHECK(memcmp(id, got, sizeof id) == 0);
  xp_nccl_rdv_cleanup(path, 2);
  free(path);
}

static void test_rank_documents(void) {
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[1024,4096],\"iterations\":3,"
                                  "\"modes\":[\"eager\",\"graph\"]}", "t.json", ".");
  xp_nccl_plan p;
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  xp_nccl_results leader, follower;
  xp_nccl_results_init(&leader, &p, 2);
  xp_nccl_results_init(&follower, &p, 2);
  CHECK_EQ_INT(leader.ncases, 4);
  for (int i = 0; i < follower.ncases; i++) {
    xp_nccl_case *c = &follower.cases[i];
    c->measured = 1;
    c->wrong = i == 2 ? 5 : 0;
    for (int k = 0; k < 3; k++) c->burst_us[3 + k] = 10.0 * (i + 1) + k; /* rank 1's row */
    leader.cases[i].measured = 1;
    leader.cases[i].wrong = 1;
    for (int k = 0; k < 3; k++) leader.cases[i].burst_us[k] = 10.0 * (i + 1) + k + 0.5;
  }
  follower.ranks[1].present = 1;
  follower.ranks[1].device = 1;
  snprintf(follower.ranks[1].host, sizeof follower.ranks[1].host, "node7");
  snprintf(follower.ranks[1].gpu.name, sizeof follower.ranks[1].gpu.name, "NVIDIA H200");
  snprintf(follower.ranks[1].gpu.pci_bus_id, sizeof follower.ranks[1].gpu.pci_bus_id, "0000:00:07.0");
  follower.ranks[1].info_log = xp_strdup("node7:9:9 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct\n");

  /* through text, as it travels between hosts */
  cJSON *doc = xp_nccl_rank_doc(&follower, 1, NULL);
  char *text = cJSON_PrintUnformatted(doc);
  cJSON *back = cJSON_Parse(text);
  CHECK_EQ_INT(xp_nccl_rank_merge(&leader, back), 0);
  CHECK_EQ_INT(leader.ranks[1].present, 1);
  CHECK_EQ_STR(leader.ranks[1].host, "node7");
  CHECK_EQ_STR(leader.ranks[1].gpu.pci_bus_id, "0000:00:07.0");
  CHECK(leader.ranks[1].info_log && strstr(leader.ranks[1].info_log, "SHM/direct") != NULL);
  CHECK_EQ_INT(leader.cases[2].wrong, 6); /* rank 0's 1 + rank 1's 5 */
  CHECK_EQ_INT(leader.cases[0].wrong, 1);
  CHECK_NEAR(leader.cases[3].burst_us[3 + 2], 42.0, 1e-12);
  CHECK_NEAR(leader.cases[3].burst_us[2], 42.5, 1e-12);
  double mean[3], spread[3];
  xp_nccl_case_samples(&leader, &leader.cases[3], mean, spread);
  CHECK_NEAR(mean[0], 40.25, 1e-12);
  CHECK_NEAR(spread[0], 0.5, 1e-12);
  free(text);
  cJSON_Delete(back);
  cJSON_Delete(doc);

  /* a rank that failed says why, and rank 0 fails with its words */
  doc = xp_nccl_rank_doc(&follower, 1, "ncclCommInitRankConfig: NCCL error: remote process exited");
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_nccl_rank_merge(&leader, doc), XP_EXIT_FAILED);
  CHECK(strstr(xp_last_error(), "rank 1 failed: ncclCommInitRankConfig") != NULL);
  cJSON_Delete(doc);
  /* a document from another plan is refused */
  xp_spec *s2 = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"iterations\":3}", "u.json", ".");
  xp_nccl_plan p2;
  CHECK_EQ_INT(xp_nccl_plan_load(s2, &p2), 0);
  xp_nccl_results small;
  xp_nccl_results_init(&small, &p2, 2);
  doc = xp_nccl_rank_doc(&small, 1, NULL);
  CHECK_EQ_INT(xp_nccl_rank_merge(&leader, doc), XP_EXIT_FAILED);
  CHECK(strstr(xp_last_error(), "different plan") != NULL);
  xp_error_quiet(0);
  cJSON_Delete(doc);
  xp_nccl_results_free(&small);
  xp_nccl_plan_free(&p2);
  xp_spec_free(s2);
  xp_nccl_results_free(&leader);
  xp_nccl_results_free(&follower);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

int main(void) {
  char dir[] = "/tmp/xp-test-nccl-gather-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  test_launchers();
  test_rendezvous(dir);
  test_rendezvous_repeated_job_id(dir);
  test_rendezvous_spaced_job_id(dir);
  test_rank_documents();
  rmdir(dir);
  CHECK_DONE();
}
