// How an agent's block moves from one version of a brain to another, matching nodes by id and
// kind: used by a hot reload (remap.cpp) and by restoring a snapshot taken under an older
// version of the brain (snapshot.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "agent.hpp"
#include "program.hpp"

namespace thicket {

inline constexpr uint32_t kUnmapped = 0xFFFFFFFF;

struct BrainRemap {
  struct Range {
    uint32_t from, to, bytes;
  };
  std::vector<uint32_t> to_new, to_old;  // node index maps (kUnmapped: gone / new)
  size_t kept = 0;
  std::vector<Range> plan;               // byte ranges that carry over, merged
  std::vector<uint32_t> removed;         // old nodes that are gone
  std::vector<uint32_t> removed_any_slots;  // old `any` blackboard slots whose key is gone
  std::vector<uint32_t> positioned;      // kept new nodes that hold a child position
  std::vector<uint32_t> parent;          // each new node's parent (kUnmapped: the root)
  std::vector<uint32_t> moved;           // kept nodes under another parent than before
  std::vector<uint32_t> imported_changed;  // kept imported composites whose children changed
  bool same_indices = false;             // every node kept at its index

  // Plans the move. With `blackboard`, slots whose key survives carry over byte for byte
  // (same runtime: string ids and references stay valid).
  static BrainRemap make(const Program& old, const Program& fresh, bool blackboard);
  // Copies what carries over from an old block into a new one (initialised by the caller).
  void copy(const uint8_t* src, uint8_t* dst) const;
  // After the copy: running kept nodes that hold a child position get the child's new
  // position. Appends the nodes that cannot resume where they were (they must restart: the
  // caller aborts them on the new program).
  void mend(const Program& old, const Program& fresh, uint8_t* block, std::vector<uint32_t>& restart) const;
  // An fsm's active states and history (called by mend), and the states an agent's queued
  // events name (SPEC 4.1); events whose state is gone are removed and appended to `dropped`.
  void mend_fsm(const Program& old, const Program& fresh, uint32_t root, uint8_t* block, std::vector<uint32_t>& restart) const;
  void mend_events(const Program& old, const Program& fresh, std::vector<QueuedEvent>& queue,
                   std::vector<QueuedEvent>& dropped) const;
  uint16_t state_to_new(const Program& old, const Program& fresh, uint16_t s) const;  // kNoPos: gone
  // The old node and the new have the same children in the same places.
  bool same_children(const Program& old, const Program& fresh, const Node& on, const Node& n) const;
  // Where kept node n (old: on), whose running child at old_pos is no longer its child, goes on:
  // just after the last child before old_pos that is still its child, else at 0 (may be n.count).
  int position_after_kept(const Program& old, const Program& fresh, const Node& on, const Node& n, uint16_t old_pos) const;
  // Whether running node `up` of `fresh` runs its child `i` (by the position it holds).
  static bool runs_child(const Program& fresh, const uint8_t* block, uint32_t up, uint32_t i);
};

}  // namespace thicket
