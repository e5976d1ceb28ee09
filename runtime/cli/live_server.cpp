#include "live_server.hpp"

#include <cctype>
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

namespace thicket::cli {

bool LiveAddress::loopback() const {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string parse_live_address(const std::string& text, LiveAddress& out) {
  const std::string usage = "--serve needs [ADDR:]PORT (e.g. 8080, 127.0.0.1:8080, 0 for any free port), got '" + text + "'";
  std::string host, port;
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    port = text;
  } else {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty() || host.find_first_of("[]") != std::string::npos) return usage;
    // An IPv6 address written without brackets: its last colon is not the port's.
    if (host.find(':') != std::string::npos && text.front() != '[') return usage;
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return usage;
  int number = std::stoi(port);
  if (number > 65535) return "--serve: port " + port + " is out of range (0 to 65535; 0 picks a free one)";
  if (!host.empty()) out.host = host;
  out.port = number;
  return {};
}

bool same_site_request(const LiveAddress& bound, int port, const std::string& host, const std::string& origin,
                       bool has_origin) {
  std::string p(1, ':');  // not ":" + to_string(port): gcc 12 warns on it (-Wstringop-overflow, a false alarm)
  p += std::to_string(port);
  const std::string own = (bound.host.find(':') != std::string::npos ? "[" + bound.host + "]" : bound.host) + p;
  auto loopback_name = [&](const std::string& name) {
    return name == "127.0.0.1" + p || name == "localhost" + p || name == "[::1]" + p || name == own;
  };
  const bool loopback = bound.loopback();
  if (loopback && !host.empty() && !loopback_name(host)) return false;
  if (!has_origin) return true;
  const std::string scheme = "http://";
  if (origin.rfind(scheme, 0) != 0) return false;  // "null" (a file or sandboxed page), https, ...
  const std::string name = origin.substr(scheme.size());
  return loopback ? loopback_name(name) : name == host;
}

std::string http_error_body(int status, const std::string& content_type) {
  if (status == 413 && content_type.rfind("application/x-www-form-urlencoded", 0) == 0)
    return "{\"error\":\"the request is too large for a form body (8 KB): send it with "
           "'Content-Type: application/json' (curl -d sends a form: add -H 'Content-Type: application/json')\"}";
  const char* why = status == 400   ? "a malformed request"
                    : status == 404 ? "no such path"
                    : status == 405 ? "this path does not take that method"
                    : status == 413 ? "the request is too large"
                    : status == 414 ? "the URL is too long"
                                    : "the request failed";
  return std::string("{\"error\":\"") + why + " (HTTP " + std::to_string(status) + ")\"}";
}

std::string refused_body(const std::string& transfer_encoding) {
  std::string te = transfer_encoding;
  for (char& c : te) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (te.find("chunked") == std::string::npos) return {};
  return "{\"error\":\"a chunked request body is not taken: send it with a Content-Length\"}";
}

void bodiless_is_empty(const httplib::Request& req) {
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding"))
    const_cast<httplib::Request&>(req).headers.emplace("Content-Length", "0");
}

// The most /record streams served at once (the 17th of 16 pool threads locked the API out).
constexpr int kMaxStreams = 24;

struct LiveServer::Impl {
  httplib::Server server;
  std::thread thread;
  LiveFeed* feed = nullptr;
  std::string page;
  int port = 0;
  std::atomic<bool> stopped{false}, listen_returned{false};
  std::atomic<int> streams{0};  // open /record streams
};

namespace {


// One SSE message per record line; a record line never holds a newline (JSON lines), so one
// `data:` field carries it whole.
bool send_line(httplib::DataSink& sink, const std::string& line) {
  std::string message;
  message.reserve(line.size() + 8);
  message.append("data: ").append(line).append("\n\n");
  return sink.write(message.data(), message.size());
}

}  // namespace

std::unique_ptr<LiveServer> LiveServer::start(const LiveAddress& address, LiveFeed& feed, std::string page,
                                              std::string& error, ApiHandler api) {
  const std::string where = (address.host.find(':') != std::string::npos ? "[" + address.host + "]" : address.host) +
                            ":" + std::to_string(address.port);
  // Told apart here because httplib only says "failed": a name that resolves to nothing...
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (int rc = getaddrinfo(address.host.c_str(), nullptr, &hints, &found); rc != 0) {
    error = "--serve: cannot listen on " + where + ": '" + address.host + "' is not an address of this machine (" +
            gai_strerror(rc) + ")";
    return nullptr;
  }
  freeaddrinfo(found);
  // A viewer that closes its tab mid-write must not end the run: a write to a closed socket
  // raises SIGPIPE, and this httplib build sends without MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);

  auto impl = std::make_unique<Impl>();
  impl->feed = &feed;
  impl->page = std::move(page);
  Impl* self = impl.get();
  // Each open stream holds one of the server's threads while it lasts (a run that ended keeps
  // its streams open for the pages that show it): at most kMaxStreams viewers, so that the page
  // and the debug API always have threads left (with every thread held by a stream, 17 tabs
  // locked the API out for good).
  self->server.new_task_queue = [] { return new httplib::ThreadPool(kMaxStreams + 8); };
  // A connection holds a thread while its request is read and while it is kept alive: with
  // httplib's 5 s defaults, 16 clients that open a connection and send half a request (or a
  // browser's idle keep-alive connections) kept the page's requests waiting for seconds. The
  // clients are local: a request comes in well under a second.
  self->server.set_read_timeout(1, 0);
  self->server.set_keep_alive_timeout(1);
  // A request's body is read whole before it is answered: httplib's default has no bound (a
  // POST of 1.5 GB took the run to 3 GB). The debug API's requests are a few KB (1,000
  // breakpoints, a blackboard value); 8 MB leaves room and is answered 413.
  self->server.set_payload_max_length(8u << 20);
  // httplib's default sets SO_REUSEPORT, with which a second thicket would quietly share a port
  // in use; SO_REUSEADDR alone still lets a restarted run take its port back at once.
  self->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Only pages of the run's own address may read or drive it (the editor's rule: a page of
  // another site could otherwise pause the run, write blackboards or reload it).
  self->server.set_pre_routing_handler([self, bound = address](const httplib::Request& req, httplib::Response& res) {
    if (!same_site_request(bound, self->port, req.get_header_value("Host"), req.get_header_value("Origin"),
                           req.has_header("Origin"))) {
      res.status = 403;
      res.set_content("{\"error\":\"refused: the run answers pages of its own address only\"}", "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (std::string why = refused_body(req.get_header_value("Transfer-Encoding")); !why.empty()) {
      res.status = 411;
      res.set_header("Connection", "close");  // its body is not read: the connection cannot go on
      res.set_content(why, "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    bodiless_is_empty(req);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  self->server.Get("/", [self](const httplib::Request&, httplib::Response& res) {
    res.set_content(self->page, "text/html; charset=utf-8");
  });
  self->server.Get("/record", [self](const httplib::Request&, httplib::Response& res) {
    if (self->streams.fetch_add(1) >= kMaxStreams) {
      self->streams.fetch_sub(1);
      res.status = 503;
      res.set_content("{\"error\":\"" + std::to_string(kMaxStreams) +
                          " viewers are watching this run already; close one (a tab of this page) and reload\"}",
                      "application/json");
      return;
    }
    LiveFeed::Reader* reader = self->feed->connect();
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [self, reader, idle = 0](size_t, httplib::DataSink& sink) mutable {
          using namespace std::chrono_literals;
          for (;;) {
            if (self->stopped || self->feed->closed()) {
              sink.done();
              return true;
            }
            if (auto line = self->feed->next(reader, 250ms)) {
              idle = 0;
              return send_line(sink, *line);
            }
            // A comment now and then while nothing comes (after the end line): a viewer that
            // went away is noticed by the failed write, and its thread is freed.
            if (++idle >= 20) {
              idle = 0;
              return sink.write(": idle\n\n", 9);
            }
          }
        },
        [self, reader](bool) {
          self->feed->disconnect(reader);
          self->streams.fetch_sub(1);
        });
  });

  self->server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) res.set_content(http_error_body(res.status, req.get_header_value("Content-Type")), "application/json");
  });
  if (api) {
    auto answer = [api](const httplib::Request& req, httplib::Response& res) {
      std::map<std::string, std::string> params;
      for (const auto& [name, value] : req.params) params.emplace(name, value);
      // HEAD asks what GET would answer, without the body (httplib leaves the body out).
      ApiReply reply = api(req.method == "HEAD" ? std::string("GET") : req.method, req.path, params, req.body);
      res.status = reply.status;
      res.set_header("Cache-Control", "no-store");
      res.set_content(reply.body, "application/json");
    };
    self->server.Get(R"(/api/.*)", answer);
    self->server.Post(R"(/api/.*)", answer);
  }

  errno = 0;
  if (address.port == 0) {
    self->port = self->server.bind_to_any_port(address.host);
  } else if (self->server.bind_to_port(address.host, address.port)) {
    self->port = address.port;
  } else {
    self->port = -1;
  }
  if (self->port <= 0) {
    const int why = errno;
    error = "--serve: cannot listen on " + where + ": ";
    if (why == EADDRINUSE) error += "the port is in use (pick another one, or 0 for any free port)";
    else if (why == EADDRNOTAVAIL) error += "'" + address.host + "' is not an address of this machine";
    else if (why == EACCES) error += "not allowed (ports below 1024 need privileges)";
    else error += why ? std::strerror(why) : "the address cannot be bound";
    return nullptr;
  }
  self->thread = std::thread([self] {
    self->server.listen_after_bind();
    self->listen_returned = true;
  });
  return std::unique_ptr<LiveServer>(new LiveServer(std::move(impl)));
}

LiveServer::LiveServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LiveServer::~LiveServer() { stop(); }

int LiveServer::port() const { return impl_->port; }

void LiveServer::stop() {
  if (impl_->stopped.exchange(true)) return;
  impl_->feed->close();  // wakes the streams waiting for a line
  // httplib's stop() does nothing until its listen loop has begun: wait for that first.
  while (!impl_->listen_returned && !impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace thicket::cli
