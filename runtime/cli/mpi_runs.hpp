// MPI for `mpirun -n K thicket run SCENARIO --runs N` (issue 15): joining the job, and the few
// messages a batch needs (batch_runs.cpp decides who runs what; this file only moves bytes).
// Built with -DTHICKET_MPI=ON (THICKET_MPI defined); without it every call here is a stand-in
// for a world of one process, and mpi_world() still says when a launcher started several
// copies, so that they can refuse instead of each running the whole batch into the same files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace thicket::cli {

struct MpiWorld {
  uint32_t rank = 0, size = 1;
  uint32_t local_size = 1;  // ranks on this machine (MPI built in), which share its cores
  bool launched = false;  // started by mpirun / srun (their environment variables say so)
  bool built = false;     // this thicket was built with MPI and has joined the job
};

// At the start of main: joins the job when a launcher started this process and MPI is built
// in (MPI_Init_thread, funneled: only the main thread talks MPI). On ranks > 0 std::cerr is
// silenced: rank 0 prints for every rank (what the others have to say travels with their
// results). Called once; mpi_end() (MPI_Finalize) before main returns.
const MpiWorld& mpi_start(int* argc, char*** argv);
const MpiWorld& mpi_world();
void mpi_end();

// Whether the ranks have compared their setup (mpi_agree_setup was called on this rank).
bool mpi_setup_compared();
// Every rank calls it at the same points of the setup (once the batch is loaded and its
// outputs checked, again once rank 0 has opened them), with its exit status so far (0: ready
// to run); a rank that stops before the first calls it once with its status. Returns the
// highest over the ranks: a rank that could not set up (a file it cannot see) stops them all
// instead of leaving rank 0 waiting, and before rank 0 empties any output.
int mpi_agree_setup(int status);
// Whether every rank passed the same text (a hash of the files the batch reads); every rank
// calls it, once all have set up.
bool mpi_same_on_every_rank(const std::string& text);
// Ranks > 0: their outcomes to rank 0. Rank 0: the bytes of ranks 1 .. size-1, in rank order.
void mpi_send_to_root(const std::string& bytes);
std::vector<std::string> mpi_receive_from_ranks();
// Rank 0's exit status, on every rank (so mpirun exits with what a single process would).
int mpi_share_status(int status);

}  // namespace thicket::cli
