#!/usr/bin/env node
// Reference oracle: runs a behavior3 editor export with the real behavior3js 0.2.2.
// usage: node b3run.js TREE.json SCRIPT.json TICKS
'use strict';
const fs = require('fs');
const path = require('path');

// package.json "main" of behavior3js@0.2.2 is libs/behavior3-0.2.2.js, a browserify
// standalone (UMD) bundle: in Node it sets module.exports and does NOT create a global.
const b3 = require(path.join(__dirname, 'node_modules/behavior3js'));
// Repeater.js in 0.2.2 compares against the free variable `b3` (b3.SUCCESS/b3.FAILURE)
// without importing it; provide the global so it gets its intended semantics.
if (!process.env.B3_NO_GLOBAL) global.b3 = b3;

const out = [];
function emit(line) { out.push(line); }
function flush() { if (out.length) fs.writeSync(1, out.join('\n') + '\n'); out.length = 0; }
function fail(e) {
  const msg = (e instanceof Error) ? e.message : String(e);
  emit('error: ' + msg);
  flush();
  process.exit(3);
}

const STATUS = { 1: 'success', 2: 'failure', 3: 'running', 4: 'error' };
const CODE = { S: b3.SUCCESS, F: b3.FAILURE, R: b3.RUNNING, E: b3.ERROR };

// Turn a project export into one tree object by inlining subtree references.
function flattenProject(proj) {
  const trees = {};
  for (const t of proj.trees || []) trees[t.id] = t;
  const main = trees[proj.selectedTree];
  if (!main) throw new Error('project: selectedTree "' + proj.selectedTree + '" not found');
  const nodes = {};
  // returns the id (in the combined tree) of the node standing for tree.nodes[id]
  function build(tree, id, prefix, stack) {
    const spec = tree.nodes[id];
    if (!spec) return prefix + id; // dangling reference: leave it, b3 behaves as it will
    if (Object.prototype.hasOwnProperty.call(trees, spec.name)) {
      const sub = trees[spec.name];
      if (stack.indexOf(sub.id) >= 0) throw new Error('project: recursive subtree reference ' + sub.id);
      if (!sub.root) throw new Error('project: subtree ' + sub.id + ' has no root');
      return build(sub, sub.root, prefix + id + '/', stack.concat([sub.id]));
    }
    const nid = prefix + id;
    if (nodes[nid]) return nid;
    const copy = Object.assign({}, spec);
    copy.id = nid;
    nodes[nid] = copy;
    if (Array.isArray(spec.children)) copy.children = spec.children.map(c => build(tree, c, prefix, stack));
    if (spec.child) copy.child = build(tree, spec.child, prefix, stack);
    return nid;
  }
  const rootId = main.root ? build(main, main.root, '', [main.id]) : null;
  // unreachable nodes of the main tree are loaded too (as b3 would)
  for (const id of Object.keys(main.nodes || {})) build(main, id, '', [main.id]);
  return {
    version: main.version, scope: 'tree', id: main.id, title: main.title,
    description: main.description, root: rootId, properties: main.properties,
    nodes: nodes, custom_nodes: proj.custom_nodes || [],
  };
}

function main() {
  const [treeFile, scriptFile, ticksArg] = process.argv.slice(2);
  if (!treeFile || !scriptFile || !ticksArg) {
    process.stderr.write('usage: b3run.js TREE.json SCRIPT.json TICKS\n');
    process.exit(2);
  }
  const ticks = parseInt(ticksArg, 10);
  let data = JSON.parse(fs.readFileSync(treeFile, 'utf8'));
  const script = JSON.parse(fs.readFileSync(scriptFile, 'utf8'));
  let K = 0;

  const names = {};
  const counters = {};
  for (const name of Object.keys(script)) {
    const def = script[name];
    const Base = def.kind === 'condition' ? b3.Condition : b3.Action;
    const seq = def.statuses.map(s => {
      if (!(s in CODE)) throw new Error('script: bad status ' + s + ' for ' + name);
      return CODE[s];
    });
    counters[name] = 0;
    names[name] = b3.Class(Base, {
      name: name,
      tick: function (tick) {
        emit(K + ' ' + name);
        counters[name]++;
        const st = seq[(counters[name] - 1) % seq.length];
        this._lastStatus = st; // per node instance
        return st;
      },
      close: function (tick) {
        if (this._lastStatus === b3.RUNNING) {
          emit(K + ' halt ' + name);
          this._lastStatus = null;
        }
      },
    });
  }

  try {
    if (data.scope === 'project') data = flattenProject(data);
    const tree = new b3.BehaviorTree();
    tree.load(data, names);
    const target = {};
    const blackboard = new b3.Blackboard();
    for (K = 1; K <= ticks; K++) {
      const st = tree.tick(target, blackboard);
      emit(K + ' status ' + (STATUS[st] || String(st)));
    }
  } catch (e) {
    fail(e);
  }
  flush();
}

main();
