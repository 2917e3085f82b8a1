# Writes OUT: a weak definition of every function in LIST (tools/cudart/api-functions.txt) that
# Runtime.cpp does not define (its strong definitions win at link time): each names itself to
# ptxrunUnsupported, which reports it and returns cudaErrorNotSupported. X_ptsz / X_ptds (the
# per-thread default stream forms) jump to X with the caller's arguments untouched: streams here
# are all in order, so the forms are the same.
cmake_policy(SET CMP0057 NEW)
file(STRINGS "${LIST}" names REGEX "^[A-Za-z_]")
set(text "// Generated from tools/cudart/api-functions.txt by tools/cudart/Stubs.cmake: do not edit.\n")
string(APPEND text "extern \"C\" int ptxrunUnsupported(const char* name);\n")
string(APPEND text "#define PTXRUN_STUB(f) extern \"C\" __attribute__((weak)) int f() { return ptxrunUnsupported(#f); }\n")
foreach(name IN LISTS names)
  set(base "")
  if(name MATCHES "^(.+)_pt(sz|ds)$")
    set(base "${CMAKE_MATCH_1}")
  endif()
  if(base AND base IN_LIST names)
    string(APPEND text "#if defined(__x86_64__)\n__asm__(\".weak ${name}\\n.type ${name},@function\\n${name}:\\n\\tjmp ${base}@PLT\\n.size ${name},.-${name}\\n\");\n#else\nPTXRUN_STUB(${name})\n#endif\n")
  else()
    string(APPEND text "PTXRUN_STUB(${name})\n")
  endif()
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
