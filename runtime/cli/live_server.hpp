// The live monitor's HTTP side (`thicket run SCENARIO --serve [ADDR:]PORT`, issue 14): on its
// own thread, GET / answers the viewer page (live mode), GET /record streams the run's record
// as server-sent events (`data: LINE` per record line: the header first, then what comes),
// GET and POST /api/... go to the debugger's handler when one is given (live_debug.hpp: the
// debug API a `thicket edit --attach` uses); anything else is 404. The lines come from a LiveFeed, which the simulation writes to; a
// connection that cannot keep up loses tick lines there, the simulation never waits for it.
// httplib stays inside live_server.cpp (a large header; main.cpp need not see it).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "live_feed.hpp"

namespace httplib {
struct Request;
}

namespace thicket::cli {

// `[ADDR:]PORT`: 127.0.0.1 when only a port is given; an IPv6 address in brackets ([::1]:8080).
struct LiveAddress {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  bool loopback() const;
};
// Empty on success, else why `text` is not an address (for a usage error).
std::string parse_live_address(const std::string& text, LiveAddress& out);

// Whether a request may be answered by a server of this machine (the live monitor, the editor)
// listening at `bound` (port: the one it got): a web page of another site must not drive it.
// `host` and `origin` are the request's headers ("" when absent). An Origin, when sent (browsers
// send it with every POST and cross-site request), must be the server's own address; and a server
// on loopback answers only Host names of loopback, so a page whose name an attacker re-pointed at
// 127.0.0.1 (DNS rebinding) is refused although it is "same origin" to itself. Requests with
// neither header (curl, scripts, the editor's proxy) pass. A server bound to another address
// checks only that the Origin is the Host it was asked as (the run warned it is reachable).
bool same_site_request(const LiveAddress& bound, int port, const std::string& host, const std::string& origin,
                       bool has_origin);

// The JSON body of an error answer that has none of its own (httplib's: a malformed request, an
// unknown path or method, a URL too long), so every answer of the live and editor servers is JSON.
// `content_type`: the request's; httplib reads a form body (curl -d's default) up to 8 KB only,
// and a 413 for one says to send JSON or text instead.
std::string http_error_body(int status, const std::string& content_type = {});

// Why a request's body is refused before it is read, or "": a chunked body (Transfer-Encoding:
// chunked), which this httplib reads whole whatever the payload limit (600 MB took 1.6 GB).
// Browsers and scripts send a Content-Length, which the limit applies to.
std::string refused_body(const std::string& transfer_encoding);

// A request with neither a Content-Length nor a Transfer-Encoding has no body (RFC 9112 6.3:
// its length is zero), e.g. `curl -X POST URL`; this httplib waited for one until its read timed
// out, then answered 400. Given `Content-Length: 0`, it reads none. Called from the pre-routing
// handlers, which httplib hands the request it is about to read and route.
void bodiless_is_empty(const httplib::Request& req);

// An answer of the debug API: the HTTP status and a JSON body.
struct ApiReply {
  int status = 200;
  std::string body;
};
// One request of the debug API, on a server thread: the method ("GET" or "POST"), the path
// (e.g. "/api/agent"), the query's parameters and the body.
using ApiHandler = std::function<ApiReply(const std::string& method, const std::string& path,
                                          const std::map<std::string, std::string>& params, const std::string& body)>;

class LiveServer {
 public:
  // Binds and starts serving; nullptr and `error` (a sentence: port in use, bad address) if the
  // address cannot be listened on. `feed` (and what `api` uses) must outlive the server.
  static std::unique_ptr<LiveServer> start(const LiveAddress& address, LiveFeed& feed, std::string page,
                                           std::string& error, ApiHandler api = {});
  ~LiveServer();  // stop()
  int port() const;  // the bound port (the one picked when asked for 0)
  // Ends every stream and the server thread; returns when they are done.
  void stop();

  struct Impl;

 private:
  explicit LiveServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace thicket::cli
