# Run at build time: records the git commit xp was built from and whether the tree was dirty.
execute_process(COMMAND git -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  set(commit "unknown")
endif()
execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no
                OUTPUT_VARIABLE st ERROR_QUIET RESULT_VARIABLE rc2)
# Clean only when git could say both which commit and that nothing differs from it.
if(rc EQUAL 0 AND rc2 EQUAL 0 AND st STREQUAL "")
  set(dirty 0)
else()
  set(dirty 1)
endif()
set(text "const char xp_build_version[] = \"${VERSION}\";\nconst char xp_build_commit[] = \"${commit}\";\nconst int xp_build_dirty = ${dirty};\nconst char xp_build_compiler[] = \"${COMPILER}\";\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
