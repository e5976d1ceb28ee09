// MPI for batches: see mpi_runs.hpp.
#include "mpi_runs.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>

#ifdef THICKET_MPI
#include <mpi.h>
#endif

namespace thicket::cli {

namespace {

MpiWorld g_world;
bool g_compared = false;
[[maybe_unused]] bool g_setup_failed = false;  // (MPI) then there is no batch, nor a status to share after it

// The first of these variables that is set: Open MPI's mpirun, then PMI(x), which Slurm's
// srun and MPICH's launchers set.
const char* env_first(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = std::getenv(n); v && *v) return v;
  return nullptr;
}

[[maybe_unused]] uint32_t to_u32(const char* s) { return s ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10)) : 0; }

#ifdef THICKET_MPI
// Large results travel in pieces: an MPI count is an int.
constexpr size_t kChunk = size_t(1) << 30;
constexpr int kTagSize = 1, kTagBytes = 2;
#endif

}  // namespace

const MpiWorld& mpi_start(int* argc, char*** argv) {
  const char* rank = env_first({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"});
  g_world.launched = rank != nullptr;
  if (!g_world.launched) return g_world;
#ifdef THICKET_MPI
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  g_world.rank = static_cast<uint32_t>(r);
  g_world.size = static_cast<uint32_t>(n);
  g_world.built = true;
  // The ranks on this machine: they share its cores (the default --threads divides them).
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &local);
  int local_n = 1;
  MPI_Comm_size(local, &local_n);
  MPI_Comm_free(&local);
  g_world.local_size = static_cast<uint32_t>(std::max(1, local_n));
#else
  (void)argc, (void)argv;
  g_world.rank = to_u32(rank);
  g_world.size = std::max<uint32_t>(1, to_u32(env_first({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})));
#endif
  if (g_world.rank > 0) std::cerr.rdbuf(nullptr);  // rank 0 speaks for all
  return g_world;
}

const MpiWorld& mpi_world() { return g_world; }

void mpi_end() {
#ifdef THICKET_MPI
  if (g_world.built) MPI_Finalize();
  g_world.built = false;
#endif
}

bool mpi_setup_compared() { return g_compared; }

int mpi_agree_setup(int status) {
  g_compared = true;
#ifdef THICKET_MPI
  if (g_world.built && g_world.size > 1) {
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    g_setup_failed = worst != 0;
    if (status == 0 && worst != 0 && g_world.rank == 0)
      std::cerr << "thicket: another MPI rank could not set up the batch (exit status " << worst
                << "): every rank must see the same files; run it on one process to see why\n";
    return worst;
  }
#endif
  return status;
}

bool mpi_same_on_every_rank(const std::string& text) {
#ifdef THICKET_MPI
  if (g_world.built && g_world.size > 1) {
    unsigned long long mine = std::hash<std::string>{}(text), low = mine, high = mine;  // (one binary on every rank)
    MPI_Allreduce(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return low == high;
  }
#else
  (void)text;
#endif
  return true;
}

void mpi_send_to_root(const std::string& bytes) {
#ifdef THICKET_MPI
  if (!g_world.built || g_world.rank == 0) return;
  unsigned long long size = bytes.size();
  MPI_Send(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, kTagSize, MPI_COMM_WORLD);
  for (size_t at = 0; at < bytes.size(); at += kChunk) {
    int n = static_cast<int>(std::min(kChunk, bytes.size() - at));
    MPI_Send(bytes.data() + at, n, MPI_CHAR, 0, kTagBytes, MPI_COMM_WORLD);
  }
#else
  (void)bytes;
#endif
}

std::vector<std::string> mpi_receive_from_ranks() {
  std::vector<std::string> all;
#ifdef THICKET_MPI
  if (!g_world.built || g_world.rank != 0) return all;
  for (uint32_t from = 1; from < g_world.size; ++from) {
    unsigned long long size = 0;
    MPI_Recv(&size, 1, MPI_UNSIGNED_LONG_LONG, static_cast<int>(from), kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::string bytes(size, '\0');
    for (size_t at = 0; at < bytes.size(); at += kChunk) {
      int n = static_cast<int>(std::min<size_t>(kChunk, bytes.size() - at));
      MPI_Recv(bytes.data() + at, n, MPI_CHAR, static_cast<int>(from), kTagBytes, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    all.push_back(std::move(bytes));
  }
#endif
  return all;
}

int mpi_share_status(int status) {
#ifdef THICKET_MPI
  if (g_world.built && g_world.size > 1 && !g_setup_failed) MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return status;
}

}  // namespace thicket::cli
