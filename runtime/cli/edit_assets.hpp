// The editor page's files embedded at build time (cmake/embed_files.cmake): viewer/src/editor/*
// served at /editor/NAME (index.html at /), the `yaml` package's browser build at /yaml/PATH.
#pragma once
#include <string_view>
#include <vector>

namespace thicket::cli {

struct EmbeddedFile {
  std::string_view path;  // the URL path, e.g. "/editor/app.js"
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& editor_assets();

}  // namespace thicket::cli
