# ctest Cli.render_with_no_compiler_beside_it (tests/CMakeLists.txt, Windows): ossa.exe copied alone into an
# empty folder (no ossa_hlslc.exe beside it, as a game ships) renders a .ossa with Direct3D 11: the shaders
# are built into the library. Run as: cmake -DCLI=<ossa.exe> -DOSSA_FILE=<.ossa> -DFOLDER=<scratch folder>
# [-DEMULATOR=<CMAKE_CROSSCOMPILING_EMULATOR>] -P cli_render_alone.cmake
file(REMOVE_RECURSE ${FOLDER})
file(MAKE_DIRECTORY ${FOLDER})
get_filename_component(name ${CLI} NAME)
file(COPY_FILE ${CLI} ${FOLDER}/${name})
file(GLOB beside ${FOLDER}/*)
list(LENGTH beside count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "the folder holds more than the program: ${beside}")
endif()
execute_process(COMMAND ${EMULATOR} ${FOLDER}/${name} --backend d3d11 render ${OSSA_FILE} --clip 0 --time 0.5
                        -o ${FOLDER}/alone.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${FOLDER}/alone.png)
  message(FATAL_ERROR "ossa render with no compiler beside it: exit ${rc}\n${out}${err}")
endif()
message(STATUS "rendered with no compiler beside the program: ${out}")
file(REMOVE_RECURSE ${FOLDER})
