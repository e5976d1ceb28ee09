// What `thicket check` (and the editor's check, edit_command.cpp) adds to the loader's
// diagnostics: the JSON Schema's findings at lines the compiler did not already report.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket {
const std::map<std::string, std::string>& embedded_schemas();  // generated from schemas/ (name -> text)
}

namespace thicket::cli {

// The brain file `file` as read from disk, or its text as given.
void add_schema_findings(const std::string& file, std::vector<Diagnostic>& diags);
void add_schema_findings_text(const std::string& file, const std::string& text, std::vector<Diagnostic>& diags);

}  // namespace thicket::cli
