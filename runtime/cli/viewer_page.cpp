// The viewer's page, assembled from the files embedded at build time (cmake/embed_viewer.cmake).
#include "viewer_page.hpp"

#include <cstdint>

namespace thicket::cli {

namespace viewer_assets {
extern const std::string_view uplot_js, uplot_css, body_html, viewer_css, record_js, world_js, brain_js,
    plots_js, app_js;
}

std::string viewer_page(std::string_view data_script, bool live) {
  using namespace viewer_assets;
  std::string page;
  page.reserve(uplot_js.size() + uplot_css.size() + body_html.size() + viewer_css.size() + record_js.size() +
               world_js.size() + brain_js.size() + plots_js.size() + app_js.size() + data_script.size() + 1024);
  page += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No icon: said, so that a browser does not ask the live server for /favicon.ico (a 404 in
  // its console and the server's log) nor look for one beside a replay file.
  page += "<link rel=\"icon\" href=\"data:,\">\n";
  page += live ? "<title>thicket live</title>\n" : "<title>thicket replay</title>\n";
  page += "<style>\n";
  page += uplot_css;
  page += "\n";
  page += viewer_css;
  page += "</style>\n</head>\n<body>\n";
  page += body_html;
  page += "<script>\n";
  page += uplot_js;
  page += "\n</script>\n<script>\nvar thicketLive = ";
  page += live ? "true" : "false";
  page += ";\nvar thicketRecordGzipBase64 = null;\n";
  page += data_script;
  page += "\n</script>\n<script>\n";
  for (std::string_view js : {record_js, world_js, brain_js, plots_js, app_js}) {
    page += js;
    page += "\n";
  }
  page += "</script>\n</body>\n</html>\n";
  return page;
}

std::string record_data_script(std::string_view gzip_bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string script = "thicketRecordGzipBase64 = \"";
  script.reserve(script.size() + (gzip_bytes.size() + 2) / 3 * 4 + 4);
  std::size_t i = 0;
  for (; i + 3 <= gzip_bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(std::uint8_t(gzip_bytes[i])) << 16) |
                            (std::uint32_t(std::uint8_t(gzip_bytes[i + 1])) << 8) | std::uint8_t(gzip_bytes[i + 2]);
    script += kDigits[v >> 18];
    script += kDigits[(v >> 12) & 63];
    script += kDigits[(v >> 6) & 63];
    script += kDigits[v & 63];
  }
  if (const std::size_t rest = gzip_bytes.size() - i; rest > 0) {
    std::uint32_t v = std::uint32_t(std::uint8_t(gzip_bytes[i])) << 16;
    if (rest == 2) v |= std::uint32_t(std::uint8_t(gzip_bytes[i + 1])) << 8;
    script += kDigits[v >> 18];
    script += kDigits[(v >> 12) & 63];
    script += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    script += '=';
  }
  script += "\";";
  return script;
}

}  // namespace thicket::cli
