// btrun TREE.xml SCRIPT.json TICKS
// Reference oracle harness on top of BehaviorTree.CPP 4.10.0.
// SCRIPT.json: {"A1": {"kind": "action", "statuses": ["S","R"]}, ...,
//   optional "blackboard": {"flag": false, "n": 0.0, "mode": ""}   (set on the root
//     blackboard before the first tick: bool / double / std::string),
//   optional "writes": {"A1": [["flag", true], null, ["n", 3.0]]}   (call k of A1 sets
//     writes[(k-1) % len] on the root blackboard before returning; null: nothing)}
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "behaviortree_cpp/bt_factory.h"
#include "behaviortree_cpp/contrib/json.hpp"

namespace
{
int g_tick = 0;          // current root tick (1..TICKS)
bool g_quiet = false;    // set after the last tick: Tree destructor halts are not reported
BT::Blackboard::Ptr g_bb;  // the root blackboard (leaf writes go there)

// one blackboard write: a JSON true/false -> bool, number -> double, string -> std::string
void setBB(const BT::Blackboard::Ptr& bb, const std::string& key, const nlohmann::json& v)
{
  if(v.is_boolean())
    bb->set(key, v.get<bool>());
  else if(v.is_number())
    bb->set(key, v.get<double>());
  else if(v.is_string())
    bb->set(key, v.get<std::string>());
  else
    throw std::runtime_error("bad blackboard value for key '" + key + "'");
}

struct Script
{
  std::string name;
  std::vector<BT::NodeStatus> statuses;
  // writes[i]: the [key, value] pairs call i (cycling) writes; empty: nothing
  std::vector<std::vector<std::pair<std::string, nlohmann::json>>> writes;
  size_t calls = 0;
  BT::NodeStatus next()
  {
    if(!writes.empty())
      for(const auto& kv : writes[calls % writes.size()])
        setBB(g_bb, kv.first, kv.second);
    auto st = statuses[calls % statuses.size()];
    calls++;
    return st;
  }
};

BT::PortsList leafPorts()
{
  return { BT::InputPort<std::string>("arg"), BT::InputPort<std::string>("value"),
           BT::InputPort<std::string>("target") };
}

// An action as a StatefulActionNode, the class BT.CPP's asynchronous actions derive from: ticked
// while it still holds SUCCESS or FAILURE (its parent did not reset it: WhileDoElse's condition
// while a branch runs, a two-child IfThenElse's failed condition), it returns that status
// without a call (StatefulActionNode::tick), as thicket's bt_child does.
class ScriptedAction : public BT::StatefulActionNode
{
public:
  ScriptedAction(const std::string& name, const BT::NodeConfig& cfg, Script* s)
    : BT::StatefulActionNode(name, cfg), script_(s)
  {}
  static BT::PortsList providedPorts() { return leafPorts(); }
  BT::NodeStatus onStart() override { return call(); }
  BT::NodeStatus onRunning() override { return call(); }
  void onHalted() override
  {
    // StatefulActionNode::halt calls this for a RUNNING node only, then resets it to IDLE
    // (for `_while` turning false too, where checkPreConditions calls haltNode()).
    if(!g_quiet)
      std::cout << g_tick << " halt " << script_->name << "\n";
  }

private:
  BT::NodeStatus call()
  {
    if(!g_quiet)
      std::cout << g_tick << " " << script_->name << "\n";
    return script_->next();
  }
  Script* script_;
};

class ScriptedCondition : public BT::ConditionNode
{
public:
  ScriptedCondition(const std::string& name, const BT::NodeConfig& cfg, Script* s)
    : BT::ConditionNode(name, cfg), script_(s)
  {}
  static BT::PortsList providedPorts() { return leafPorts(); }
  BT::NodeStatus tick() override
  {
    if(!g_quiet)
      std::cout << g_tick << " " << script_->name << "\n";
    return script_->next();
  }

private:
  Script* script_;
};

const char* lower(BT::NodeStatus s)
{
  switch(s)
  {
    case BT::NodeStatus::SUCCESS: return "success";
    case BT::NodeStatus::FAILURE: return "failure";
    case BT::NodeStatus::RUNNING: return "running";
    case BT::NodeStatus::SKIPPED: return "skipped";
    case BT::NodeStatus::IDLE: return "idle";
  }
  return "?";
}
}  // namespace

int main(int argc, char** argv)
{
  if(argc != 4)
  {
    std::cerr << "usage: btrun TREE.xml SCRIPT.json TICKS\n";
    return 2;
  }
  const std::string tree_path = argv[1];
  const int ticks = std::atoi(argv[3]);

  std::map<std::string, std::unique_ptr<Script>> scripts;
  // Factory and tree live outside the try block: an exception must not destroy the tree
  // (whose destructor halts running nodes) before g_quiet is set.
  BT::BehaviorTreeFactory factory;
  std::unique_ptr<BT::Tree> tree;
  try
  {
    std::ifstream in(argv[2]);
    if(!in)
      throw std::runtime_error(std::string("cannot open ") + argv[2]);
    auto j = nlohmann::json::parse(in);

    const nlohmann::json no_json = nlohmann::json::object();
    const nlohmann::json& bb_init = j.contains("blackboard") ? j["blackboard"] : no_json;
    const nlohmann::json& writes = j.contains("writes") ? j["writes"] : no_json;
    for(auto it = j.begin(); it != j.end(); ++it)
    {
      if(it.key() == "blackboard" || it.key() == "writes")
        continue;
      auto s = std::make_unique<Script>();
      s->name = it.key();
      for(const auto& v : it.value().at("statuses"))
      {
        const std::string c = v.get<std::string>();
        if(c == "S")
          s->statuses.push_back(BT::NodeStatus::SUCCESS);
        else if(c == "F")
          s->statuses.push_back(BT::NodeStatus::FAILURE);
        else if(c == "R")
          s->statuses.push_back(BT::NodeStatus::RUNNING);
        else
          throw std::runtime_error("bad status '" + c + "' for " + s->name);
      }
      if(s->statuses.empty())
        throw std::runtime_error("empty statuses for " + s->name);
      if(writes.contains(s->name))
      {
        for(const auto& w : writes[s->name])
        {
          std::vector<std::pair<std::string, nlohmann::json>> one;
          if(w.is_array() && !w.empty() && w[0].is_string())
            one.emplace_back(w[0].get<std::string>(), w.at(1));   // ["key", value]
          else if(w.is_array())
            for(const auto& kv : w)                               // [["k", v], ...]
              one.emplace_back(kv.at(0).get<std::string>(), kv.at(1));
          else if(!w.is_null())
            throw std::runtime_error("bad writes entry for " + s->name);
          s->writes.push_back(std::move(one));
        }
      }
      const std::string kind = it.value().value("kind", std::string("action"));
      Script* sp = s.get();
      if(kind == "condition")
        factory.registerNodeType<ScriptedCondition>(s->name, sp);
      else if(kind == "action")
        factory.registerNodeType<ScriptedAction>(s->name, sp);
      else
        throw std::runtime_error("bad kind '" + kind + "' for " + s->name);
      scripts[s->name] = std::move(s);
    }

    // BT.CPP's XMLParser::loadFromFile calls std::filesystem::absolute(parent_path()),
    // which throws on an empty parent (bare "tree.xml"): pass an absolute path.
    // The initial blackboard is set before the tree is created: a port such as Switch's
    // InputPort<std::string>("variable") = "{n}" would otherwise create "n" as a
    // std::string entry at load, and a later set(double) would throw.
    g_bb = BT::Blackboard::create();
    for(auto it = bb_init.begin(); it != bb_init.end(); ++it)
      setBB(g_bb, it.key(), it.value());
    tree = std::make_unique<BT::Tree>(
        factory.createTreeFromFile(std::filesystem::absolute(tree_path), g_bb));
    if(tree->rootBlackboard() != g_bb)
      throw std::runtime_error("root blackboard is not the one passed to createTreeFromFile");
    for(g_tick = 1; g_tick <= ticks; g_tick++)
    {
      const BT::NodeStatus st = tree->tickExactlyOnce();
      std::cout << g_tick << " status " << lower(st) << "\n";
    }
    g_quiet = true;
  }
  catch(const std::exception& ex)
  {
    g_quiet = true;
    std::string what = ex.what();
    for(auto& c : what)
      if(c == '\n')
        c = ' ';
    std::cout << "error: " << what << std::endl;
    std::cout.flush();
    std::_Exit(3);
  }
  std::cout.flush();
  tree.reset();  // halts every running node; silent because g_quiet is set
  return 0;
}
