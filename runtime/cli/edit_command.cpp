#include "edit_command.hpp"

#include <httplib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_args.hpp"
#include "edit_assets.hpp"
#include "json_text.hpp"  // first_invalid_utf8
#include "live_server.hpp"
#include "output_target.hpp"  // named_with_extension
#include "plain_file.hpp"
#include "schema_findings.hpp"
#include "thicket/runtime.hpp"
#include "yaml_limits.hpp"
#include "suggest.hpp"  // did_you_mean
#include <yaml-cpp/yaml.h>

namespace thicket::cli {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kExitOk = 0, kExitServe = 1, kExitLoad = 2, kExitUsage = 64;

std::atomic<bool> g_edit_stop{false};
void on_edit_sigint(int) { g_edit_stop = true; }

std::optional<std::string> read_all(const std::string& path, std::string* why_not = nullptr) {
  std::string text, why;
  if (!read_limited(path, kMaxYamlBytes, text, why)) {
    if (why_not) *why_not = why;
    return std::nullopt;
  }
  return text;
}

// The secret of the address the editor prints (?token=, 128 random bits in hex). Every request
// must carry it: in the query, as X-Thicket-Token, or as the cookie the page's first load sets.
// Without it, any program of any user on this machine that found the port could read and save
// the brain and have /api/check load (and quote) the files a posted brain names.
std::string new_token() {
  std::random_device random;  // (the kernel's random source)
  std::string token;
  char part[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(random()));
    token += part;
  }
  return token;
}

// The value of cookie NAME in a Cookie header ("a=1; b=2"), or "".
std::string cookie_value(const std::string& header, const std::string& name) {
  for (size_t at = 0; at < header.size();) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    size_t from = header.find_first_not_of(' ', at);
    if (from < end && header.compare(from, name.size(), name) == 0 && from + name.size() < end &&
        header[from + name.size()] == '=')
      return header.substr(from + name.size() + 1, end - from - name.size() - 1);
    at = end + 1;
  }
  return {};
}

// Compared in time that does not depend on where they differ.
bool same_secret(const std::string& given, const std::string& secret) {
  if (given.size() != secret.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < secret.size(); ++i) differ |= static_cast<unsigned char>(given[i] ^ secret[i]);
  return differ == 0;
}

// Why a text cannot be the brain file (empty: it can): larger than a brain file may be (thicket
// check and every later open would refuse it), or not UTF-8 (the page would change its bytes).
std::string unsavable(const std::string& text) {
  if (text.size() > kMaxYamlBytes)
    return "larger than " + std::to_string(kMaxYamlBytes >> 20) + " MB; a brain file may be at most " +
           std::to_string(kMaxYamlBytes >> 20) + " MB";
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    return "not UTF-8 (byte " + hex_byte(text[bad]) + " on line " + std::to_string(line) +
           "): the editor works in UTF-8; save the file as UTF-8 first";
  }
  return {};
}

// What the page compares to notice a change on disk: the content's hash (FNV-1a, 64 bits) and
// size. Not the modification time: two writes within the clock's granularity share one.
std::string disk_stamp(const std::string& path) {
  auto text = read_all(path);
  if (!text) {
    // Only a file that is not there is "missing": one that cannot be read (too large, a
    // folder now) is something else, which a save from a page that saw it missing must not
    // replace unasked.
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(path, ec);
    if (ec || !fs::exists(st)) return "missing";
    char buf[80];
    const auto size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0;
    std::snprintf(buf, sizeof buf, "unreadable:%d:%llu", static_cast<int>(fs::status(path, ec).type()),
                  static_cast<unsigned long long>(size));
    return buf;
  }
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : *text) h = (h ^ ch) * 1099511628211ull;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx:%zu", static_cast<unsigned long long>(h), text->size());
  return buf;
}

const char* content_type(std::string_view path) {
  auto ends = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    default: return "note";
  }
}

struct Editor {
  std::string path;    // as given on the command line: messages name it so
  std::string attach;  // HOST:PORT of a served run, or ""
  LiveAddress attach_address;
  std::string dev_dir;  // THICKET_EDITOR_DIR: the page's files read from here on each request
  int port = 0;
  std::string token = new_token();  // asked of every request (new_token)
  std::mutex mutex;  // one check or save at a time
  std::atomic<int> proxied{0};  // /attach requests waiting on the attached run
  mode_t create_mask = 022;  // the process's umask, read before the server's threads start
  Json last_leaves = Json::array();
  Json schemas;

  // The text checked as if it were the file: the loader's diagnostics, then the schema's
  // findings elsewhere, in `thicket check`'s order; the nodes in `thicket dump` order.
  Json check(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex);
    Runtime rt;
    std::vector<Diagnostic> diags;
    std::optional<BrainHandle> brain;
    if (const std::string why = unsavable(text); !why.empty()) {
      diags.push_back({Severity::Error, path, 0, 0, why});  // as thicket check says of such a file
    } else {
      brain = rt.load_string(text, path, diags);
      add_schema_findings_text(path, text, diags);
    }
    sort_diagnostics(diags);
    if (brain && has_errors(diags)) brain.reset();
    Json out;
    out["ok"] = brain.has_value();
    out["type"] = brain ? rt.brain_type(*brain) : "";
    out["name"] = brain ? rt.brain_name(*brain) : "";
    Json errors = Json::array();
    for (const Diagnostic& d : diags)
      errors.push_back({{"file", d.file},
                        {"line", d.line},
                        {"column", d.column},
                        {"severity", severity_name(d.severity)},
                        {"message", d.message},
                        {"text", format_diagnostic(d)}});
    out["errors"] = std::move(errors);
    Json nodes = Json::array();
    if (brain) {
      for (const NodeInfo& n : rt.nodes(*brain)) {
        Json links = Json::array();
        for (const auto& [to, label] : n.links) links.push_back({{"to", to}, {"label", label}});
        nodes.push_back({{"id", n.id},
                         {"kind", n.kind},
                         {"label", n.label},
                         {"params", n.params},
                         {"parent", n.parent},
                         {"links", std::move(links)},
                         {"file", n.file},
                         {"line", n.line},
                         {"column", n.column}});
      }
      Json leaves = Json::array();
      for (const LeafInfo& l : rt.leaves())
        if (!l.file.empty()) leaves.push_back({{"name", l.name}, {"file", l.file}});
      last_leaves = leaves;
    } else if (Json leaves = leaves_of_broken(text); !leaves.empty()) {
      last_leaves = std::move(leaves);
    }
    out["nodes"] = std::move(nodes);
    out["leaves"] = last_leaves;  // a failed check keeps the palette of the last good one
    return out;
  }

  // The palette of a brain that does not load: the leaves of the Lua files its `leaves:` lists,
  // when its YAML reads and those files load (loaded under a stand-in brain of one wait node).
  // A file opened broken had no palette at all; empty when there is nothing to show.
  Json leaves_of_broken(const std::string& text) {
    Json out = Json::array();
    std::vector<Diagnostic> ignored;
    if (!unsavable(text).empty()) return out;
    std::optional<YAML::Node> doc = load_yaml_checked(text, path, ignored);
    if (!doc || !doc->IsMap() || !(*doc)["leaves"]) return out;
    const YAML::Node files = (*doc)["leaves"];
    std::string list;  // the file names as a flow list (a JSON string is a YAML one)
    if (files.IsScalar()) list = Json(files.Scalar()).dump();
    for (const YAML::Node& f : files.IsSequence() ? files : YAML::Node()) {
      if (!f.IsScalar()) return out;
      list += (list.empty() ? "" : ", ") + Json(f.Scalar()).dump();
    }
    if (list.empty()) return out;
    Runtime rt;
    std::vector<Diagnostic> diags;
    if (!rt.load_string("tree: palette\nleaves: [" + list + "]\nroot: {wait: 0}\n", path, diags)) return out;
    for (const LeafInfo& l : rt.leaves())
      if (!l.file.empty()) out.push_back({{"name", l.name}, {"file", l.file}});
    return out;
  }

  // Writes through a file beside it and a rename: a crash mid-write never leaves half a brain.
  Json save(const std::string& text, const std::string& base, bool force, int& status) {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string now = disk_stamp(path);
    if (!force && now != base) {
      status = 409;
      return {{"ok", false}, {"conflict", true}, {"mtime", now}};
    }
    if (const std::string why = unsavable(text); !why.empty()) {
      status = 400;
      return {{"ok", false}, {"error", "not saved: " + why}};
    }
    // A link is followed: the file it names is replaced (a rename over the link would put a
    // plain file in its place and leave that file as it was), or made again when it was
    // removed (a dangling link: a forced save after the file went away), as an editor's save
    // writes through a link. Followed a level at a time, as the kernel does (at most 40).
    fs::path target(path);
    for (int hops = 0; hops < 40; ++hops) {
      std::error_code link_ec;
      if (!fs::is_symlink(fs::symlink_status(target, link_ec)) || link_ec) break;
      const fs::path to = fs::read_symlink(target, link_ec);
      if (link_ec) break;
      target = to.is_absolute() ? to : target.parent_path() / to;
    }
    // A read-only file stays as it is, forced or not: the save is a rename over it, which the
    // file's mode does not stop (only its folder's), so its mode is looked at here. No write
    // bit at all counts even for root, whom access() lets write anything.
    if (struct stat st {}; ::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      const bool no_write_bit = (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
      if (no_write_bit || (::access(target.c_str(), W_OK) != 0 && (errno == EACCES || errno == EROFS))) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        status = 403;
        return {{"ok", false},
                {"error", "not saved: " + target.string() + " is read-only (mode " + mode +
                              (no_write_bit ? "" : ", not writable by this user") + "); make it writable (chmod u+w) and save again"}};
      }
    }
    // A name of its own, made by mkstemp (created, never an existing file or a link planted
    // under a name known in advance).
    std::string temp_name = (target.parent_path() / ("." + target.filename().string() + ".thicket-edit-XXXXXX")).string();
    const int fd = ::mkstemp(temp_name.data());
    if (fd < 0) {
      status = 500;
      return {{"ok", false}, {"error", "cannot write beside " + target.string() + ": " + std::strerror(errno)}};
    }
    // The file keeps its owner and group where this process may give them (root editing a
    // user's file left it root's); elsewhere the new file is the editor's, as any save makes it.
    if (struct stat before {}; ::stat(target.c_str(), &before) == 0 && ::fchown(fd, before.st_uid, before.st_gid) != 0) {
      [[maybe_unused]] const int group_only = ::fchown(fd, static_cast<uid_t>(-1), before.st_gid);  // the group at least
    }
    const fs::path temp(temp_name);
    {
      size_t done = 0;
      bool written = true;
      while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          written = false;
          break;
        }
        done += static_cast<size_t>(n);
      }
      if (written && ::fsync(fd) != 0) written = false;  // on disk before the rename makes it the brain
      if (::close(fd) != 0) written = false;
      if (!written) {
        status = 500;
        std::error_code ignored;
        fs::remove(temp, ignored);
        return {{"ok", false}, {"error", "cannot write " + temp.string()}};
      }
    }
    // The file keeps its mode; one made anew gets a new file's (0666 less the umask), not
    // mkstemp's 0600.
    std::error_code ec;
    fs::perms mode = fs::status(target, ec).permissions();
    if (ec || mode == fs::perms::unknown) mode = fs::perms(0666 & ~create_mask);
    fs::permissions(temp, mode, ec);
    fs::rename(temp, target, ec);
    if (ec) {
      status = 500;
      std::error_code ignored;  // (the rename's reason is the one to tell)
      fs::remove(temp, ignored);
      return {{"ok", false}, {"error", "cannot replace " + path + ": " + ec.message()}};
    }
    // The rename itself on disk too: a crash after the answer keeps the new brain.
    if (const int dir = ::open(target.parent_path().empty() ? "." : target.parent_path().c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
    status = 200;
    return {{"ok", true}, {"mtime", disk_stamp(path)}};
  }

  // A page file: from THICKET_EDITOR_DIR when set (working on the page needs no rebuild),
  // else the copy embedded at build time.
  std::optional<std::string> asset(const std::string& url) {
    if (!dev_dir.empty() && url.rfind("/editor/", 0) == 0) {
      const std::string name = url.substr(8);
      if (name.empty() || name.find('/') != std::string::npos || name[0] == '.') return std::nullopt;
      return read_all((fs::path(dev_dir) / name).string());
    }
    for (const EmbeddedFile& f : editor_assets())
      if (f.path == url) return std::string(f.bytes);
    return std::nullopt;
  }

  // Only this machine's pages may use the server: a Host that is not loopback (DNS
  // rebinding) or another site's Origin (a form posted from a web page) is refused.
  bool allowed(const httplib::Request& req) const {
    return same_site_request(LiveAddress{}, port, req.get_header_value("Host"), req.get_header_value("Origin"),
                             req.has_header("Origin"));
  }

  // The cookie's name carries the port: cookies are kept per host, not per port, and two
  // editors on one machine have two tokens.
  std::string cookie_name() const { return "thicket-edit-" + std::to_string(port); }
  bool has_token(const httplib::Request& req) const {
    return same_secret(req.get_param_value("token"), token) ||
           same_secret(req.get_header_value("X-Thicket-Token"), token) ||
           same_secret(cookie_value(req.get_header_value("Cookie"), cookie_name()), token);
  }
};

void send_json(httplib::Response& res, const Json& body, int status = 200) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

// Passes /attach/REST on to the served run's /api/REST, as it came (method, query, body). REST is
// a path of the debug API (letters, digits, _ - and /, no `..`), the answer is the run's JSON
// or a 502 saying why there is none, and at most kMaxProxied requests wait on the run at once:
// a run that stops answering holds them for up to 15 s, and the rest of the server's threads
// stay free for the editor's own API.
constexpr int kMaxProxied = 4;  // of the server's 8 threads

void proxy(Editor& ed, const httplib::Request& req, httplib::Response& res, bool post) {
  if (ed.attach.empty()) {
    send_json(res, {{"error", "not attached: start thicket edit with --attach HOST:PORT"}}, 404);
    return;
  }
  const std::string rest = req.matches[1].str();
  const bool plain = rest.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/") ==
                         std::string::npos &&
                     rest.find("..") == std::string::npos && rest.find("//") == std::string::npos;
  if (!plain) {
    send_json(res, {{"error", "/attach/ takes a path of the run's debug API (e.g. /attach/agents), not '" + rest + "'"}}, 400);
    return;
  }
  struct Waiting {
    std::atomic<int>& n;
    ~Waiting() { n.fetch_sub(1); }
  } waiting{ed.proxied};
  if (ed.proxied.fetch_add(1) >= kMaxProxied) {
    send_json(res, {{"error", "the run at " + ed.attach + " is slow to answer: " + std::to_string(kMaxProxied) +
                                  " requests are already waiting on it"}},
              503);
    return;
  }
  httplib::Client client(ed.attach_address.host, ed.attach_address.port);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(15, 0);  // a step waits for its tick
  std::string target = "/api/" + rest;
  if (!req.params.empty()) {
    std::string query;
    for (const auto& [k, v] : req.params)
      if (k != "token")  // the editor's secret is not the run's: never passed on (to whatever listens there)
        query += (query.empty() ? "" : "&") + httplib::detail::encode_query_param(k) + "=" +
                 httplib::detail::encode_query_param(v);
    if (!query.empty()) target += "?" + query;
  }
  httplib::Result r = post ? client.Post(target, req.body, "application/json") : client.Get(target);
  if (!r) {
    const httplib::Error e = r.error();
    const std::string why = e == httplib::Error::Connection ? "nothing answers there (is 'thicket run ... --serve' running?)"
                            : e == httplib::Error::Read     ? "no answer within 15 s"
                                                            : "the connection failed (" + httplib::to_string(e) + ")";
    send_json(res, {{"error", "cannot reach the run at " + ed.attach + ": " + why}}, 502);
    return;
  }
  // Only a thicket run's JSON is passed on: the page of some other server (its HTML, its
  // scripts) is not served from the editor's address.
  if (r->get_header_value("Content-Type").rfind("application/json", 0) != 0) {
    send_json(res, {{"error", "the server at " + ed.attach + " is not a thicket run's debug API (it answered HTTP " +
                                  std::to_string(r->status) + ", not JSON)"}},
              502);
    return;
  }
  res.status = r->status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(r->body, "application/json");
}

}  // namespace


int edit_command(int argc, char** argv, const char* usage) {
  auto usage_error = [&](const std::string& what) {
    std::cerr << "thicket: " << what << "\n" << usage;
    return kExitUsage;
  };
  Editor ed;
  ed.create_mask = ::umask(0);  // read (umask has no read-only form) and put back at once,
  ::umask(ed.create_mask);      // here on the one thread there is
  std::string port_text = "0";
  for (int i = 2; i < argc; ++i) {
    std::optional<std::string> joined;
    const std::string a = option_name(argv[i], joined);
    if (a == "--port" || a == "--attach") {
      const std::optional<std::string> value = option_value(joined, i, argc, argv);
      if (!value) return usage_error(a + " needs a value");  // ('--attach ""' ran unattached)
      (a == "--port" ? port_text : ed.attach) = *value;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "' for 'thicket edit'" + did_you_mean(a, {"--port", "--attach"}) +
                         " (options: --port, --attach)");
    } else if (ed.path.empty()) {
      ed.path = a;
    } else {
      return usage_error("'thicket edit' takes one FILE");
    }
  }
  if (ed.path.empty()) return usage_error("'thicket edit' needs a brain FILE.yaml");
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port_text) > 65535)
    return usage_error("--port needs a port number (0 to 65535; 0 picks a free one), got '" + port_text + "'");
  if (!ed.attach.empty()) {
    std::string why = parse_live_address(ed.attach, ed.attach_address);
    // Port 0 picks a free port to listen on; a run to attach to is at a port of its own.
    if (why.empty() && ed.attach_address.port == 0) why = "port 0";
    if (why.empty() && ed.attach_address.host.find_first_of(" \t") != std::string::npos) why = "a host with a space";
    if (!why.empty()) return usage_error("--attach needs HOST:PORT of a 'thicket run ... --serve', got '" + ed.attach + "'");
  }
  std::error_code ec;
  // Not a pipe (reading one would wait for a writer), a device or a folder; checked before
  // reading.
  if (const char* problem = not_plain_file(ed.path); *problem) {
    std::cerr << ed.path << ": error: cannot read the file: " << problem << " (the editor opens an existing brain file)\n";
    return kExitLoad;
  }
  if (named_with_extension(ed.path, ".lua")) {  // (it opened as a brain, every line a YAML error)
    std::cerr << ed.path << ": error: a Lua leaf file: the editor opens a brain's YAML (open the brain whose "
              << "'leaves:' lists it, and edit the Lua in an editor of your own)\n";
    return kExitLoad;
  }
  std::string why_not;
  auto text = read_all(ed.path, &why_not);
  if (!text) {
    std::cerr << ed.path << ": error: cannot read the file: " << why_not << "\n";
    return kExitLoad;
  }
  if (const std::string why = unsavable(*text); !why.empty()) {
    std::cerr << ed.path << ": error: " << why << "\n";
    return kExitLoad;
  }
  {
    // A scenario names brains; the editor edits one brain file.
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line))
      if (line.rfind("scenario:", 0) == 0) {
        std::cerr << ed.path << ": error: this is a scenario; open one of its brain files with 'thicket edit' "
                                "(and attach to its run: thicket run SCENARIO --serve PORT)\n";
        return kExitLoad;
      }
  }
  if (const char* dir = std::getenv("THICKET_EDITOR_DIR")) ed.dev_dir = dir;
  ed.schemas = Json::object();
  for (const auto& [name, body] : embedded_schemas()) {
    const std::string kind = name.substr(0, name.find('.'));
    if (kind == "scenario") continue;
    ed.schemas[kind] = Json::parse(body, nullptr, false);
  }

  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(8); };
  server.set_read_timeout(1, 0);  // idle or half-sent connections free their thread soon (live_server.cpp)
  server.set_keep_alive_timeout(1);
  server.set_payload_max_length(64u << 20);  // a brain larger than this is no brain to edit by hand
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) res.set_content(http_error_body(res.status, req.get_header_value("Content-Type")), "application/json");
  });
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_pre_routing_handler([&ed](const httplib::Request& req, httplib::Response& res) {
    // Without the token: a 403 first, whatever the request (a chunked one was told 411).
    if (ed.allowed(req) && !ed.has_token(req)) {
      const std::string why = "refused: the editor answers the address it printed, with its ?token= (thicket edit: "
                              "http://127.0.0.1:" + std::to_string(ed.port) + "/?token=...)";
      if (req.path == "/") {  // (a person reads this one, in the browser)
        res.status = 403;
        res.set_content(why + "\n", "text/plain; charset=utf-8");
      } else {
        send_json(res, {{"error", why}}, 403);
      }
      res.set_header("Connection", "close");  // (a body it sent is not read)
      return httplib::Server::HandlerResponse::Handled;
    }
    if (std::string why = refused_body(req.get_header_value("Transfer-Encoding")); !why.empty() && ed.allowed(req)) {
      res.status = 411;
      res.set_header("Connection", "close");  // its body is not read: the connection cannot go on
      res.set_content(why, "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (ed.allowed(req)) {
      // Answers go uncompressed: this httplib compresses with brotli at its slowest setting
      // whenever the browser accepts it (0.5 s for the check of a 2,000-node brain, 0.08 s
      // without), and nothing here crosses a network. The request is not const: httplib hands
      // the handlers the one it is about to route.
      const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
      bodiless_is_empty(req);
      return httplib::Server::HandlerResponse::Unhandled;
    }
    send_json(res, {{"error", "refused: the editor answers pages of this machine only"}}, 403);
    return httplib::Server::HandlerResponse::Handled;
  });
  auto serve_asset = [&ed](const std::string& url, httplib::Response& res) {
    if (auto body = ed.asset(url)) {
      res.set_header("Cache-Control", "no-store");
      res.set_content(*body, content_type(url));
    } else {
      send_json(res, {{"error", "no such file of the editor's page"}}, 404);  // (not the path echoed back as text)
    }
  };
  server.Get("/", [&](const httplib::Request& req, httplib::Response& res) {
    // The printed address's token becomes the page's cookie: its scripts and its calls of the
    // API carry it from then on, and a reload of the page without ?token= still works.
    if (req.has_param("token"))
      res.set_header("Set-Cookie", ed.cookie_name() + "=" + ed.token + "; Path=/; HttpOnly; SameSite=Strict");
    serve_asset("/editor/index.html", res);
  });
  server.Get(R"(/(editor|yaml)/(.+))", [&](const httplib::Request& req, httplib::Response& res) {
    serve_asset(req.path, res);
  });
  server.Get("/api/file", [&ed](const httplib::Request&, httplib::Response& res) {
    std::string stamp = disk_stamp(ed.path);
    std::string why_not;
    auto now = read_all(ed.path, &why_not);
    if (!now) {
      send_json(res, {{"error", "cannot read " + ed.path + ": " + why_not}}, 500);
      return;
    }
    if (const std::string why = unsavable(*now); !why.empty()) {
      send_json(res, {{"error", ed.path + ": " + why}}, 500);
      return;
    }
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(ed.path, ec), ec);
    send_json(res, {{"path", ed.path},
                    {"absolute", ec ? ed.path : absolute.string()},  // the attached run's agents are asked by it
                    {"text", *now},
                    {"mtime", stamp},
                    {"attach", ed.attach.empty() ? Json(nullptr) : Json(ed.attach)}});
  });
  server.Get("/api/disk", [&ed](const httplib::Request&, httplib::Response& res) {
    send_json(res, {{"mtime", disk_stamp(ed.path)}});
  });
  server.Get("/api/schemas", [&ed](const httplib::Request&, httplib::Response& res) { send_json(res, ed.schemas); });
  server.Post("/api/check", [&ed](const httplib::Request& req, httplib::Response& res) {
    send_json(res, ed.check(req.body));
  });
  server.Post("/api/save", [&ed](const httplib::Request& req, httplib::Response& res) {
    Json body;
    try {
      body = Json::parse(req.body);
    } catch (const Json::parse_error& e) {  // e.g. text that is not UTF-8: said, not "save needs ..."
      send_json(res, {{"ok", false}, {"error", std::string("the body is not JSON: ") + e.what()}}, 400);
      return;
    }
    // (every field of its type: a wrong one is a 400 with why, not nlohmann's exception, a 500)
    const bool ok_mtime = !body.is_object() || !body.contains("base_mtime") || body["base_mtime"].is_string();
    const bool ok_force = !body.is_object() || !body.contains("force") || body["force"].is_boolean();
    if (!body.is_object() || !body.contains("text") || !body["text"].is_string() || !ok_mtime || !ok_force) {
      send_json(res,
                {{"ok", false},
                 {"error", "save needs {\"text\": string, \"base_mtime\": string, \"force\": true|false}"}},
                400);
      return;
    }
    if (!body.contains("base_mtime") && !body.value("force", false)) {  // (it was taken as a conflict, a 409)
      send_json(res,
                {{"ok", false},
                 {"error", "save needs \"base_mtime\" (the \"mtime\" /api/file or /api/disk gave) or \"force\": true"}},
                400);
      return;
    }
    int status = 200;
    Json out = ed.save(body["text"].get<std::string>(), body.value("base_mtime", std::string()),
                       body.value("force", false), status);
    send_json(res, out, status);
  });
  server.Get(R"(/attach/(.+))", [&ed](const httplib::Request& req, httplib::Response& res) { proxy(ed, req, res, false); });
  server.Post(R"(/attach/(.+))", [&ed](const httplib::Request& req, httplib::Response& res) { proxy(ed, req, res, true); });

  std::signal(SIGPIPE, SIG_IGN);
  const int wanted = std::stoi(port_text);
  errno = 0;
  ed.port = wanted == 0 ? server.bind_to_any_port("127.0.0.1") : (server.bind_to_port("127.0.0.1", wanted) ? wanted : -1);
  if (ed.port <= 0) {
    std::cerr << "thicket edit: cannot listen on 127.0.0.1:" << port_text << ": "
              << (errno == EADDRINUSE ? "the port is in use (pick another one, or 0 for any free port)"
                                      : "the address cannot be bound")
              << "\n";
    return kExitServe;
  }
  std::signal(SIGINT, on_edit_sigint);
  std::signal(SIGTERM, on_edit_sigint);
  std::thread listener([&server] { server.listen_after_bind(); });
  std::cerr << "thicket edit: http://127.0.0.1:" << ed.port << "/?token=" << ed.token << " (" << ed.path
            << (ed.attach.empty() ? std::string() : ", attached to " + ed.attach) << "; Ctrl-C to stop)" << std::endl;
  while (!g_edit_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server.stop();
  listener.join();
  std::cerr << "thicket edit: stopped\n";
  return kExitOk;
}

}  // namespace thicket::cli
