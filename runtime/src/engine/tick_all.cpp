// tick_all (SPEC 8.2): every live agent once, on the calling thread or split into jobs that
// the game's job system runs; time slicing; the calls leaves make that wait for the end of the
// tick_all (spawn, despawn, send to another agent); events taken off agents' queues.
//
// Determinism: a job ticks its agents in index order and keeps what they produce (trace
// events, log and print lines, deferred calls) with the agent's index; after the jobs, all of
// it is put in agent order (a stable sort: an agent's own entries keep their order) and
// delivered or applied. Nothing a job does depends on another job, so the executor may run the
// jobs in any order, on any threads, and the outcome is that of the single-threaded tick_all.
#include <algorithm>
#include <atomic>
#include <cxxabi.h>
#include <cstdio>
#include <iostream>

#include "runtime_impl.hpp"

namespace thicket {

TickJob*& current_job() {
  thread_local TickJob* job = nullptr;
  return job;
}

namespace {
// Agents of brains without script leaves are split into jobs of at least this many, and into at
// most kMaxNativeJobs jobs: enough for a 16-thread job system to balance, few enough that a
// job's overhead stays small beside its agents.
constexpr size_t kMinJobAgents = 256;
constexpr size_t kMaxNativeJobs = 64;
}  // namespace

void RuntimeImpl::reset_extra(uint32_t index, const Program& p) {
  if (extras.size() < agents.size()) extras.resize(agents.size());
  AgentExtra& x = extras[index];
  sliced_agents -= x.sliced;
  pending_events -= static_cast<int64_t>(x.events.size());
  x = AgentExtra{};
  x.every = std::max<uint32_t>(1, p.tick_every);
  x.sliced = x.every > 1;
  sliced_agents += x.sliced;
  x.born = call_time();
}

void RuntimeImpl::unslice_ready() {
  size_t kept = 0;
  for (uint32_t index : unslicing) {
    if (index >= agents.size() || index >= extras.size()) continue;
    const AgentExtra& x = extras[index];
    if (!agents[index].alive || !x.sliced || x.every != 1) continue;  // despawned, or sliced again: not ours
    if (x.ticked && x.last != last_call_now) {  // not ticked at the last call yet
      unslicing[kept++] = index;
      continue;
    }
    unslice(index);
  }
  unslicing.resize(kept);
}

void RuntimeImpl::unslice(uint32_t index) {
  AgentExtra& x = extras[index];
  AgentInfo& a = agents[index];
  x.sliced = false;
  --sliced_agents;
  a.time = call_time() - x.born;  // from where the call clock had it, its own clock goes on
  a.epoch = a.time;
  a.steps = 0;
}

double RuntimeImpl::begin_call(double dt) {
  begin_step(dt);
  if (extras.size() < agents.size()) extras.resize(agents.size());
  return last_call_now = call_time();
}

void RuntimeImpl::note_error(TickJob& job, uint32_t index) {
  if (!job.error || index < job.error_agent) {
    job.error = std::current_exception();
    job.error_agent = index;
  }
}

Status RuntimeImpl::tick_in_job(TickJob& job, uint32_t index, double dt, double now, bool forced) {
  AgentInfo& a = agents[index];
  Brain& b = *brains[a.brain];
  job.agent = index;
  AgentExtra* x = nullptr;
  bool sliced = false;
  if (sliced_agents > 0 || pending_events > 0 || forced) {
    if (extras.size() < agents.size()) extras.resize(agents.size());  // forced: outside tick_all
    x = &extras[index];
    if (x->sliced && !forced) {
      // Its calls are those where (call number mod k) equals (id mod k): the next one is kept.
      if (x->due != calls) [[likely]] {
        if (x->due > calls && x->due - calls < x->every) return Status::Invalid;  // not yet
        x->due = calls + (a.id % x->every + x->every - calls % x->every) % x->every;
        if (x->due != calls) return Status::Invalid;  // not this agent's call
      }
      x->due = calls + x->every;
      sliced = true;
      ++a.ticks;
      a.dt = x->ticked ? now - x->last : dt;  // the sim time since its last tick
      a.time = now - x->born;
      x->last = now;
      x->ticked = true;
    } else if (x->sliced) {
      // Runtime::tick of a sliced agent: at the call clock's time, by its own dt, which moves
      // its clock ahead of the run's by dt (as an unsliced agent's own clock moves), so the
      // clock never goes back at its next tick_all.
      sliced = true;
      ++a.ticks;
      a.dt = dt;
      a.time = now - x->born;
      x->born -= dt;
      x->last = now - dt;
      x->ticked = true;
    }
  }
  if (!sliced) clock_before(a, dt);
  ++job.ticked;
  if (x && !x->events.empty() && b.program->nodes[0].kind != NodeKind::Fsm) {
    // Only fsm brains take events (their event phase, tick.cpp): any other brain's are dropped.
    const size_t n = std::min(kEventsPerTick, x->events.size());
    if (trace_sink) {
      for (size_t k = 0; k < n; ++k) {
        TraceEvent ev;
        ev.type = TraceEvent::Type::Event;
        ev.tick = a.ticks;
        ev.agent = a.id;
        ev.event = std::string(strings.get(x->events[k].name));
        emit_trace(ev);
      }
    }
    x->events.erase(x->events.begin(), x->events.begin() + static_cast<std::ptrdiff_t>(n));
    job.events_delta -= static_cast<int64_t>(n);
  }
  Engine& e = *job.engine;
  e.trace = trace_sink ? abort_tracer.get() : nullptr;
  Status s = Status::Invalid;
  try {
    s = e.tick(*b.program, a, b.block(a.row));
  } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
    throw;
  } catch (...) {
    note_error(job, index);
  }
  if (trace_sink && trace_ticks) {
    TraceEvent ev;
    ev.tick = a.ticks;
    ev.agent = a.id;
    ev.status = s;
    ev.running = running_nodes(index);
    emit_trace(ev);
  }
  if (!sliced) clock_after(a, dt);
  return s;
}

void RuntimeImpl::tick_all(double dt) {
  // The job is kept from call to call, so a call builds and frees nothing (a tick_all from
  // inside one is refused by Runtime::tick_all).
  tick_all_in(call_job, dt);
}

void RuntimeImpl::tick_all_in(TickJob& job, double dt) {
  SinkErrors sink_errors(*this);
  if (!unslicing.empty()) unslice_ready();
  begin_step(dt);
  job.rt = this;
  job.engine = engine.get();
  {
    JobScope scope(job);
    // Leaves call spawn/despawn/send on this thread, or on the executor's jobs, which start
    // after this store: release is enough (a plain store on x86, not a locked exchange).
    TickingFlag in_tick(ticking);
    if (trace_sink || sliced_agents > 0 || pending_events > 0) {
      const double now = begin_call(dt);
      for (uint32_t i = 0; i < agents.size(); ++i)
        if (agents[i].alive && !sits_out(i)) tick_in_job(job, i, dt, now);
    } else {
      tick_plain(job, dt);
    }
  }
  ++call_steps;
  ++calls;
  end_call(job);
  sink_errors.rethrow();
}

void RuntimeImpl::end_call(TickJob& job) {
  if (job.out.empty() && job.deferred.empty() && !job.error && !outside_pending.load(std::memory_order_acquire)) {
    // Nothing to hand over (no buffered output, no deferred call, no exception): the counts only.
    pending_events += job.events_delta;
    job.events_delta = 0;
    agent_ticks += job.ticked;
    job.ticked = 0;
    job.buffered = false;
    return;
  }
  TickJob* jobs[] = {&job};
  finish_call(jobs, 1);
}

// The common case: no trace, no slicing, no events. The same steps as tick_in_job without its
// tests, and the batched walk for brains with enough agents.
[[gnu::always_inline]] inline void RuntimeImpl::tick_plain(TickJob& job, double dt) {
  Engine& e = *engine;
  e.trace = nullptr;
  // One agent on its own: its clock, its tick, an exception kept.
  auto tick_one = [&](AgentInfo& a, Brain& b, size_t i) {
    job.agent = static_cast<uint32_t>(i);
    ++job.ticked;
    try {
      e.tick(*b.program, a, b.block(a.row));
    } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
      throw;
    } catch (...) {
      note_error(job, static_cast<uint32_t>(i));
    }
    clock_after(a, dt);
  };
  // Brains with batch_min or more live agents and a batchable program tick them together.
  bool batching = false;
  if (batch_min > 0 && any_batchable) {
    for (size_t k = 0; k < brains.size(); ++k) {
      const Brain& b = *brains[k];
      const bool on = b.program->batchable && b.row_agent.size() - b.free_rows.size() >= batch_min;
      batches[k].on = on;
      batching |= on;
    }
  }
  if (!batching) {
    // Leaves cannot add or remove agents or brains during the tick_all (those calls wait for
    // its end), so the arrays stay where they are: read once, not after every agent's tick.
    AgentInfo* const all = agents.data();
    const size_t n = agents.size();
    const std::unique_ptr<Brain>* const brain_of = brains.data();
    for (size_t i = 0; i < n; ++i) {
      AgentInfo& a = all[i];
      if (i + 4 < n && all[i + 4].alive) {  // the state of an agent a few ahead
        const AgentInfo& ahead = all[i + 4];
        __builtin_prefetch(reinterpret_cast<const char*>(&ahead) + 64);
        __builtin_prefetch(brain_of[ahead.brain]->block(ahead.row));
      }
      if (!a.alive) continue;
      Brain& b = *brain_of[a.brain];
      clock_before(a, dt);
      tick_one(a, b, i);
    }
    return;
  }
  // Agents of those brains gather in their brain's batch, ticked when it is full and at the
  // end; the rest are ticked on the way. Their leaves are agent_local, so the order in which
  // different agents' leaves run cannot be seen.
  auto flush = [&](uint16_t brain) {
    BrainBatch& q = batches[brain];
    const Program& p = *brains[brain]->program;
    job.ticked += q.size;
    // A leaf that throws ends its own agent's tick only, as in tick_one: the batched walk goes
    // on with the others and then names the lowest agent whose leaf threw.
    if (q.size >= batch_min) {
      try {
        e.tick_batch(p, q.agents, q.size);
      } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
        throw;
      } catch (...) {
        const AgentInfo* at = e.batch_error_agent() ? e.batch_error_agent() : q.agents[0].agent;
        note_error(job, static_cast<uint32_t>(at - agents.data()));
      }
    } else {
      for (uint32_t k = 0; k < q.size; ++k) {
        try {
          e.tick(p, *q.agents[k].agent, q.agents[k].block);
        } catch (abi::__forced_unwind&) {
          throw;
        } catch (...) {
          note_error(job, static_cast<uint32_t>(q.agents[k].agent - agents.data()));
        }
      }
    }
    for (uint32_t k = 0; k < q.size; ++k) clock_after(*q.agents[k].agent, dt);
    q.size = 0;
  };
  for (size_t i = 0; i < agents.size(); ++i) {
    AgentInfo& a = agents[i];
    if (!a.alive) continue;
    Brain& b = *brains[a.brain];
    clock_before(a, dt);
    BrainBatch& q = batches[a.brain];
    if (q.on && a.resume_leaf == kNoNode) {
      q.agents[q.size++] = {&a, b.block(a.row)};
      if (q.size == Engine::kBatchMax) flush(a.brain);
      continue;
    }
    tick_one(a, b, i);
  }
  for (size_t k = 0; k < batches.size(); ++k)
    if (batches[k].size > 0) flush(static_cast<uint16_t>(k));
}

void RuntimeImpl::tick_all(double dt, const Executor& executor) {
  if (!executor) {
    tick_all(dt);
    return;
  }
  SinkErrors sink_errors(*this);
  if (!unslicing.empty()) unslice_ready();
  const double now = begin_call(dt);
  // The jobs: one per script state for the agents whose brains need one (their leaves run in
  // that state, an agent always in its own), then the other agents in contiguous chunks.
  const size_t lanes = script_lanes();
  if (split_version != layout_version) {
    split_lanes.assign(lanes, {});
    split_native.clear();
    for (uint32_t i = 0; i < agents.size(); ++i) {
      const AgentInfo& a = agents[i];
      if (!a.alive) continue;
      if (brains[a.brain]->scripted) split_lanes[lane_of(a)].push_back(i);
      else split_native.push_back(i);
    }
    split_version = layout_version;
  }
  const std::vector<uint32_t>& native = split_native;
  const size_t chunks = native.empty() ? 0
                        : std::min(kMaxNativeJobs, (native.size() + kMinJobAgents - 1) / kMinJobAgents);
  parallel_jobs.resize(std::max(parallel_jobs.size(), lanes + chunks));
  std::vector<TickJob*>& jobs = parallel_list;  // (no call runs inside another: ticking is refused)
  jobs.clear();
  for (size_t k = 0; k < lanes; ++k)
    if (!split_lanes[k].empty()) {
      parallel_jobs[k].span = {split_lanes[k].data(), split_lanes[k].size()};
      jobs.push_back(&parallel_jobs[k]);
    }
  for (size_t c = 0; c < chunks; ++c) {
    TickJob& job = parallel_jobs[lanes + c];
    const size_t begin = native.size() * c / chunks, end = native.size() * (c + 1) / chunks;
    job.span = {native.data() + begin, end - begin};
    jobs.push_back(&job);
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    TickJob& job = *jobs[j];
    job.rt = this;
    job.engine = lane_engine(static_cast<size_t>(&job - parallel_jobs.data()));
    job.buffered = true;
  }
  // Each job runs once, whatever the executor does: a job it runs twice does nothing the
  // second time, and one it never runs is run here after it returns.
  if (parallel_started_size < jobs.size()) {
    parallel_started.reset(new std::atomic<bool>[jobs.size()]);
    parallel_started_size = jobs.size();
  }
  for (size_t j = 0; j < jobs.size(); ++j) parallel_started[j] = false;
  // No trace, slicing or events: each job's agents take tick_plain's steps, without tick_in_job's
  // tests (the common case; tick_in_job costs ~5 ns more an agent on T31).
  struct Call {
    const std::vector<TickJob*>& jobs;
    std::atomic<bool>* started;
    bool plain;
    double dt, now;
  } call{jobs, parallel_started.get(), !trace_sink && sliced_agents == 0 && pending_events == 0, dt, now};
  // Two pointers: small enough for std::function to hold without an allocation.
  auto run = [this, &call](size_t j) {
    const auto& jobs = call.jobs;
    std::atomic<bool>* const started = call.started;
    const bool plain = call.plain;
    const double dt = call.dt, now = call.now;
    if (j >= jobs.size() || started[j].exchange(true)) return;
    TickJob& job = *jobs[j];
    JobScope scope(job);
    CLocaleScope c_numbers(scripts_loaded);  // on the executor's thread (c_locale.hpp)
    Engine& e = *job.engine;
    e.trace = nullptr;
    const uint32_t* list = job.span.first;
    const size_t n = job.span.second;
    for (size_t k = 0; k < n; ++k) {
      if (k + 4 < n) {  // the state of an agent a few ahead, as tick_plain does
        const AgentInfo& ahead = agents[list[k + 4]];
        __builtin_prefetch(reinterpret_cast<const char*>(&ahead) + 64);
        __builtin_prefetch(brains[ahead.brain]->block(ahead.row));
      }
      if (!plain) {
        if (!sits_out(list[k])) tick_in_job(job, list[k], dt, now);
        continue;
      }
      AgentInfo& a = agents[list[k]];
      Brain& b = *brains[a.brain];
      job.agent = list[k];
      clock_before(a, dt);
      try {
        e.tick(*b.program, a, b.block(a.row));
      } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
        throw;
      } catch (...) {
        note_error(job, list[k]);
      }
      clock_after(a, dt);
    }
    if (plain) job.ticked += n;
  };
  std::exception_ptr executor_error;
  {
    TickingFlag in_tick(ticking);
    try {
      executor(jobs.size(), run);
    } catch (...) {
      executor_error = std::current_exception();
    }
    for (size_t j = 0; j < jobs.size(); ++j) run(j);
  }
  ++call_steps;
  ++calls;
  finish_call(jobs.data(), jobs.size());
  if (executor_error) std::rethrow_exception(executor_error);
  sink_errors.rethrow();
}

void RuntimeImpl::finish_call(TickJob* const* jobs, size_t n) {
  // Trace events, log and print lines, in agent order.
  std::vector<const TickJob::Out*> out;
  for (size_t j = 0; j < n; ++j)
    for (const auto& o : jobs[j]->out) out.push_back(&o);
  if (!out.empty()) {
    std::stable_sort(out.begin(), out.end(), [](const TickJob::Out* x, const TickJob::Out* y) { return x->agent < y->agent; });
    // Still the tick to the sinks: a sink that called tick_all, tick or a load from here was
    // obeyed (an executor's tick_all hands its output over after the jobs), where the same
    // sink in tick_all(dt) is refused; the deferred calls below run after it.
    TickingFlag in_tick(ticking);
    for (const TickJob::Out* o : out) {
      switch (o->kind) {
        case TickJob::Out::Kind::Trace: if (trace_sink) call_trace_sink(o->trace); break;
        case TickJob::Out::Kind::Log: log(o->text); break;
        case TickJob::Out::Kind::Print: print(o->text); break;
        case TickJob::Out::Kind::ScriptError:
          if (auto said = errors->say(o->error)) log(*said);
          break;
      }
    }
  }
  // Counts, and the exception of the lowest agent index, whatever job met it.
  std::exception_ptr error;
  uint32_t error_agent = UINT32_MAX;
  // The list of the call's deferred calls reuses the last call's buffer (moved out, so that a
  // call made from run_deferred's hooks would take a fresh one, not this one).
  std::vector<Deferred> deferred = std::move(deferred_spare);
  deferred.clear();
  for (size_t j = 0; j < n; ++j) {
    TickJob& job = *jobs[j];
    pending_events += job.events_delta;
    job.events_delta = 0;
    agent_ticks += job.ticked;
    job.ticked = 0;
    job.out.clear();
    job.buffered = false;
    if (job.error && job.error_agent < error_agent) {
      error = job.error;
      error_agent = job.error_agent;
    }
    job.error = nullptr;
    job.error_agent = UINT32_MAX;
    for (auto& d : job.deferred) deferred.push_back(std::move(d));
    job.deferred.clear();
    job.storm_caller = UINT32_MAX;  // the next call counts afresh (keeps_send)
  }
  // Deferred calls, in the order of the agents that made them, then of the calls.
  if (outside_pending.exchange(false)) {
    std::lock_guard<std::mutex> lock(outside_mutex);
    for (auto& d : outside_job.deferred) deferred.push_back(std::move(d));
    outside_job.deferred.clear();
  }
  // Jobs hold their agents in order, so the list is usually in order already (stable_sort takes
  // a buffer of its own).
  auto by_caller = [](const Deferred& x, const Deferred& y) { return x.caller < y.caller; };
  if (!std::is_sorted(deferred.begin(), deferred.end(), by_caller))
    std::stable_sort(deferred.begin(), deferred.end(), by_caller);
  queued_spawns.store(0, std::memory_order_relaxed);
  run_deferred(deferred);
  deferred.clear();
  deferred_spare = std::move(deferred);
  if (error) std::rethrow_exception(error);
}

void RuntimeImpl::run_deferred(std::vector<Deferred>& deferred) {
  for (Deferred& d : deferred) {
    switch (d.kind) {
      case Deferred::Kind::Spawn: spawn_or_defer(d.brain, d.bb, d.id, d.caller); break;
      case Deferred::Kind::Despawn: despawn(d.target); break;
      case Deferred::Kind::Send:
        if (agent_ptr(d.target)) queue_event(d.target.index, d.event);
        break;
    }
  }
}

void RuntimeImpl::run_hook_calls() {
  // One loop for the whole chain: a despawn run here runs its agent's hooks, whose calls this
  // loop takes next (a chain of stop hooks each despawning the next agent nests no deeper).
  if (running_hook_calls) return;
  running_hook_calls = true;
  try {
    while (outside_pending.exchange(false)) {
      std::vector<Deferred> deferred;
      {
        std::lock_guard<std::mutex> lock(outside_mutex);
        deferred.swap(outside_job.deferred);
      }
      queued_spawns.store(0, std::memory_order_relaxed);
      run_deferred(deferred);
    }
  } catch (...) {
    running_hook_calls = false;
    throw;
  }
  running_hook_calls = false;
}

// ---- calls that wait for the end of a tick_all ----

void RuntimeImpl::defer(Deferred d) {
  TickJob* job = current_job();
  if (job && job->rt == this) {
    d.caller = job->agent;
    job->deferred.push_back(std::move(d));
    return;
  }
  std::lock_guard<std::mutex> lock(outside_mutex);  // another thread of the game, mid-tick
  outside_job.deferred.push_back(std::move(d));
  outside_pending = true;
}

AgentHandle RuntimeImpl::spawn_or_defer(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb,
                                        uint32_t id, uint32_t leaf_agent) {
  if (brain.index >= brains.size()) return {};
  if (ticking) {
    Deferred d;
    d.kind = Deferred::Kind::Spawn;
    d.brain = brain;
    d.id = id;
    d.bb = bb;
    defer(std::move(d));
    queued_spawns.fetch_add(1, std::memory_order_relaxed);
    return {};
  }
  if (id == 0) return spawn(brain, bb);
  // A leaf's spawn that is refused here is a script error (counted: --strict stops, the exit
  // status says so), said with the agent whose leaf asked; the game's own is not.
  const bool by_leaf = leaf_agent < agents.size();
  const std::string asker = by_leaf ? " (thicket.spawn in a leaf of agent " + std::to_string(agents[leaf_agent].id) + ")" : "";
  if (id > kMaxAgentId) {
    brain_errors += by_leaf;
    log("error: spawn: agent id " + std::to_string(id) + " is past the largest, " + std::to_string(kMaxAgentId) +
        "; no agent spawned" + asker);
    return {};
  }
  if (find_index(id)) {
    brain_errors += by_leaf;
    if (++in_use_said <= kInUseSaid)
      log("error: spawn: agent id " + std::to_string(id) + " is in use; no agent spawned" + asker +
          (in_use_said == kInUseSaid ? "\n  (said " + std::to_string(kInUseSaid) +
                                           " times; further spawns of an id in use are refused without a word)"
                                     : std::string()));
    return {};
  }
  const uint32_t saved = next_agent_id;
  next_agent_id = id;
  AgentHandle h = spawn(brain, bb);
  next_agent_id = std::max(saved, id + 1);
  return h;
}

void RuntimeImpl::despawn_or_defer(AgentHandle agent) {
  if (!ticking) {
    despawn(agent);
    return;
  }
  Deferred d;
  d.kind = Deferred::Kind::Despawn;
  d.target = agent;
  defer(std::move(d));
}

bool TickJob::keeps_send(uint32_t target) {
  if (storm_caller != agent) {  // another agent's tick (finish_call forgets it after each call)
    storm_caller = agent;
    storm_sends = 0;
    storm_targets.clear();
  }
  if (++storm_sends <= kMaxQueuedEvents) return true;
  if (storm_targets.empty())  // its sends so far: the last entries of `deferred`, all kept
    for (auto d = deferred.rbegin(); d != deferred.rend() && d->caller == agent; ++d)
      if (d->kind == Deferred::Kind::Send) ++storm_targets[d->target.index];
  uint32_t& sent = storm_targets[target];
  if (sent > kMaxQueuedEvents) return false;
  ++sent;
  return true;
}

bool RuntimeImpl::send_or_defer(AgentHandle agent, std::string_view event) {
  if (event.empty() || !agent_ptr(agent)) return false;
  TickJob* job = current_job();
  if (!ticking) return queue_event(agent.index, event);
  if (job && job->rt == this && job->agent == agent.index)  // a leaf's send to its own agent: at once
    return queue_event(agent.index, event);
  // A leaf sending in a loop: past its queue's capacity, the sends of one agent's tick to one
  // agent are dropped here (delivery, in agent order and then call order, would drop them all,
  // logging the first drop only: the one after the capacity is kept for that), not kept until
  // the tick's end (a storm of 40 ms on 30 agents held 730 MB). With a trace sink every send is
  // kept: each drop is a trace record of its own.
  if (job && job->rt == this && !trace_sink && !job->keeps_send(agent.index)) return true;
  Deferred d;
  d.kind = Deferred::Kind::Send;
  d.target = agent;
  d.event = strings.intern(event);  // an id, not a copy: a name past 15 bytes allocated a string a send
  defer(std::move(d));
  return true;
}

bool RuntimeImpl::queue_event(uint32_t index, std::string_view event) {
  if (extras.size() < agents.size()) extras.resize(agents.size());
  if (extras[index].events.size() >= kMaxQueuedEvents) [[unlikely]] {  // a storm: the event is dropped
    drop_event(index, event);
    return false;
  }
  return queue_event(index, strings.intern(event));
}

bool RuntimeImpl::queue_event(uint32_t index, uint32_t interned) {
  if (extras.size() < agents.size()) extras.resize(agents.size());
  std::vector<QueuedEvent>& q = extras[index].events;
  if (q.size() >= kMaxQueuedEvents) [[unlikely]] {  // a storm: the queue is full, the event is dropped
    drop_event(index, strings.get(interned));
    return false;
  }
  QueuedEvent e;
  e.name = interned;
  q.push_back(e);
  if (!takes_events(program_of(agents[index]))) count_events(1);
  return true;
}

void RuntimeImpl::drop_event(uint32_t index, std::string_view event) {
  // The trace sink and the log are the game's code. What they call is treated as a stop hook's
  // call (a spawn waits, a load is refused), and nothing read from the agent is held across
  // them: a trace callback's spawns grew the agent array under a held reference.
  const AgentInfo& a = agents[index];
  const Program& p = program_of(a);  // a brain's program outlives this call: reloads are refused
  // Most drops come after the first, which alone is logged: with no trace to write they cost
  // a look-up (they built the trace event and the log line each time, ~3x a delivered send).
  const std::string key = "queue full";
  const bool said = reported_before(p, key);
  if (said && !trace_sink) return;
  TraceEvent ev;
  if (trace_sink) {
    ev.type = TraceEvent::Type::Event;
    ev.tick = a.ticks;
    ev.agent = a.id;
    ev.event = std::string(event);
    ev.queue_full = true;
    if (takes_events(p)) ev.brain = p.name;
  }
  std::string message;
  if (!said)
    message = (p.files.empty() ? p.name : p.files[0]) + ": warning: agent " + std::to_string(a.id) +
              ": its event queue holds " + std::to_string(kMaxQueuedEvents) + " events; event '" + std::string(event) +
              "' and any further ones are dropped until it drains (events sent in a loop, by a leaf or the game?)\n"
              "  reported once; first at tick " + std::to_string(a.ticks);
  bool outer;
  {
    HookScope hooks(ticking);
    outer = hooks.outer();
    if (trace_sink) emit_trace(ev);
    if (!said) report_once(p, key, message);
  }
  if (outer) run_hook_calls();
}

void RuntimeImpl::count_events(int64_t delta) {
  TickJob* job = current_job();
  if (job && job->rt == this) job->events_delta += delta;
  else pending_events += delta;
}

void RuntimeImpl::report_once(const Program& p, const std::string& key, std::string message, bool counted) {
  script_error(p, ScriptErrorBook::kBrainNode, key, std::move(message), true, counted);
}

// ---- output that waits for agent order while jobs run ----

void RuntimeImpl::emit_trace(const TraceEvent& ev) {
  TickJob* job = current_job();
  if (job && job->rt == this && job->buffered) {
    job->out.push_back({TickJob::Out::Kind::Trace, job->agent, ev, {}});
    return;
  }
  if (trace_sink) call_trace_sink(ev);
}

void RuntimeImpl::call_trace_sink(const TraceEvent& ev) {
  struct Call {  // also when the sink throws
    RuntimeImpl& rt;
    explicit Call(RuntimeImpl& r) : rt(r) { ++rt.trace_calls; }
    ~Call() {
      if (--rt.trace_calls > 0 || !rt.trace_next) return;
      rt.trace_sink = std::move(rt.trace_next->first);
      rt.trace_ticks = rt.trace_next->second;
      rt.trace_next.reset();
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;
  } call(*this);
  if (!collect_sink_errors) {
    trace_sink(ev);
    return;
  }
  if (sink_error) return;  // it threw in this call: not called again until the call ends
  try {
    trace_sink(ev);
  } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
    throw;
  } catch (...) {
    sink_error = std::current_exception();
  }
}

void RuntimeImpl::log(const std::string& line) const {
  TickJob* job = current_job();
  if (job && job->rt == this && job->buffered) {
    job->out.push_back({TickJob::Out::Kind::Log, job->agent, {}, line});
    return;
  }
  if (options.log) options.log(line);
  else std::cerr << line + '\n';  // one write, not two (std::cerr is unbuffered)
}

void RuntimeImpl::script_error(const Program& program, uint32_t node, std::string key, std::string text, bool warning,
                               bool counted) {
  ScriptErrorBook::Entry e{program.name, node, std::move(key), std::move(text), warning, counted};
  if (error_sink) {
    error_sink(std::move(e));
    return;
  }
  TickJob* job = current_job();
  if (job && job->rt == this && job->buffered) {
    TickJob::Out o{TickJob::Out::Kind::ScriptError, job->agent, {}, {}};
    o.error = std::move(e);
    job->out.push_back(std::move(o));
    return;
  }
  if (auto said = errors->say(std::move(e))) log(*said);
}

bool RuntimeImpl::script_error_silenced(const Program& program, uint32_t node, const std::string& key) const {
  return errors->silenced(program.name, node, key);
}

void RuntimeImpl::print(const std::string& line) {
  TickJob* job = current_job();
  if (job && job->rt == this && job->buffered) {
    job->out.push_back({TickJob::Out::Kind::Print, job->agent, {}, line});
    return;
  }
  if (print_sink) {
    print_sink(line);
    return;
  }
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace thicket
