# The layering check fails on an upward include: a copy of src/ and include/ with one planted in the runtime
# (src/runtime/sample_job.cpp including the offline compression header) must be refused, naming the file.
#   cmake -DROOT=SOURCE_TREE -DWORK=SCRATCH_DIR -P planted_include.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(COPY "${ROOT}/src" "${ROOT}/include" DESTINATION "${WORK}")
file(READ "${WORK}/src/runtime/sample_job.cpp" text)
file(WRITE "${WORK}/src/runtime/sample_job.cpp" "#include \"ossa/offline/compression.h\"\n${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${ROOT}/cmake/check_layers.cmake
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${WORK}")
if(result EQUAL 0)
  message(FATAL_ERROR "the layering check passed a runtime file that includes offline code:\n${out}${err}")
endif()
if(NOT err MATCHES "src/runtime/sample_job.cpp: runtime must not include offline")
  message(FATAL_ERROR "the layering check failed without naming the planted include:\n${err}")
endif()
message("the planted upward include was refused: src/runtime/sample_job.cpp: runtime must not include offline")
