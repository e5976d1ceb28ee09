// Plain data in snapshots: what a script host saves of an agent's script side (the fields of
// its agent table, its hook tables' `mem`, its `any` blackboard values) and what a restore
// gives back. Plain means nil, booleans, integers, numbers, strings and tables of those
// (keys: booleans, numbers, strings), nested at most kPlainMaxDepth deep; anything else is
// left out by the saver (snapshot.md: guide "Snapshots").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "thicket/snapshot.hpp"

namespace thicket {

enum class PlainTag : uint8_t { Nil = 0, False = 1, True = 2, Integer = 3, Number = 4, String = 5, Table = 6 };
inline constexpr int kPlainMaxDepth = 32;

struct PlainEntry;
struct PlainValue {
  PlainTag tag = PlainTag::Nil;
  int64_t integer = 0;
  double number = 0;
  std::string text;
  // Table: its keys and values. (A struct, not std::pair: a pair of a type still being
  // defined is ill-formed, and clang with libstdc++ says so.)
  std::vector<PlainEntry> entries;
};
struct PlainEntry {
  PlainValue key, value;
};

// Writes a table's header: the caller then writes `count` keys and values.
inline void write_plain_table(SnapshotWriter& out, uint32_t count) {
  out.u8(static_cast<uint8_t>(PlainTag::Table));
  out.u32(count);
}
void write_plain(SnapshotWriter& out, const PlainValue& v);
// Reads one value; a bad tag, a NaN or nil key, a table nested too deep or a count longer
// than the bytes left fail the reader.
void read_plain(SnapshotReader& in, PlainValue& out, int depth = 0);

// An agent's script side as saved (the node indices are those of the saved program until the
// restore maps them to the loaded one).
struct ScriptAgentState {
  PlainValue fields;  // the agent table's own fields (a table; Nil when there were none)
  struct Mem {
    uint32_t node = 0;
    bool task = false;  // a running task, else a hook table's mem value
    PlainValue value;
    // A running task's journal (RuntimeOptions::journal_tasks): replayed after the restore;
    // without one the task restarts.
    uint8_t journal = 0;  // kTaskRestart, kTaskJournal, kTaskJournalRestarted
    uint32_t resumes = 0;
    std::string journal_bytes;
  };
  std::vector<Mem> mem;
};
// The script side's bytes: fields (a plain value), then u32 count and per entry u32 node,
// u8 kind (1 hook mem + a plain value, 2 running task + u8 journal kind: 0 restart, 1 a
// journal (u32 resumes, str bytes), 2 a journal of a run that had restarted).
inline constexpr uint8_t kMemHooks = 1, kMemTask = 2;
inline constexpr uint8_t kTaskRestart = 0, kTaskJournal = 1, kTaskJournalRestarted = 2;
void read_script_state(SnapshotReader& in, ScriptAgentState& out, uint32_t node_count);

// The checksum a snapshot keeps of its payload (snapshot.cpp): tests damage bytes behind it.
uint64_t snapshot_checksum(std::string_view payload);

// What a save left out because it is not plain data (functions, userdata, coroutines, tables
// with metatables, cycles, too deep): counted, the first described.
struct SnapshotDrops {
  size_t count = 0;
  std::string first;  // e.g. "agent 3, node 'patrol', mem.target: a function"
  // Why the save cannot be exact (a running task's journal; RuntimeOptions::journal_tasks):
  // the first reason, "" when none. A save with one is refused.
  std::string refused;
  // Bytes the scripts' plain values may still take in this save (set at the first agent's, from
  // the Lua heap's cap): tables are saved by value, once per reference, so a text or table
  // reached through many fields, or tables sharing tables level upon level, could make a
  // snapshot many times the heap (a 50 MB text in five fields: 250 MB an agent).
  size_t plain_left = SIZE_MAX;
  bool plain_budget_set = false;
};

}  // namespace thicket
