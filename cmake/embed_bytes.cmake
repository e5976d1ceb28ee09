# embed_bytes(FILE VAR SIZE_VAR): FILE's bytes as the body of a C array initializer ('\x41',...
# 32 to a line, ending with '\0') in VAR, and the byte count (without the 0) in SIZE_VAR.
# Shared by embed_viewer.cmake and embed_files.cmake (run with cmake -P).
function(embed_bytes file var size_var)
  file(READ ${file} hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  # One line per 32 bytes keeps the file readable by editors and diff tools.
  string(REGEX REPLACE "((('[^']*'),){32})" "\\1\n" bytes "${bytes}")
  set(${var} "${bytes}'\\0'" PARENT_SCOPE)
  set(${size_var} ${size} PARENT_SCOPE)
endfunction()
