# ctest Cli.render_shows_morph_targets (tests/CMakeLists.txt): `ossa render` applies morph targets. MODEL's clip
# animates morph weights only (no joint tracks), so its frames at two times differ only if the weights are
# drawn. Run as: cmake -DCLI=<ossa> -DMODEL=<AnimatedMorphCube.gltf> -DOUT=<folder> -P cli_render_morph.cmake
if(NOT EXISTS ${MODEL})
  message(STATUS "SKIPPED: ${MODEL} not found (../shared is not in users' clones)")
  return()
endif()
file(MAKE_DIRECTORY ${OUT})
foreach(run "0;gpu" "1;gpu" "1;cpu")
  list(GET run 0 time)
  list(GET run 1 skinning)
  execute_process(COMMAND ${CLI} render ${MODEL} --time ${time} --skinning ${skinning} --size 96x96
                          -o ${OUT}/morph_${time}_${skinning}.png
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ossa render --time ${time} --skinning ${skinning}: exit ${rc}: ${err}")
  endif()
endforeach()
file(SHA256 ${OUT}/morph_0_gpu.png rest)
file(SHA256 ${OUT}/morph_1_gpu.png gpu)
file(SHA256 ${OUT}/morph_1_cpu.png cpu)
if(rest STREQUAL gpu OR rest STREQUAL cpu)
  message(FATAL_ERROR "the frames at 0 s and 1 s are the same: the morph weights were not drawn")
endif()
message(STATUS "the frames at 0 s and 1 s differ (GPU palette and CPU skinning)")
