# q8nn_probe_config_package(<package> <result-var>)
#
# Loads <package>'s CMake config in a throw-away child configure before the real find_package.
# A package config that fails inside itself (Debian's oneDNN calls find_package(OpenCL REQUIRED),
# and OpenCL's development files are only a Recommends) raises a fatal error that no caller can
# catch; probing in a child process turns that into a FALSE result and one message, so an optional
# peer can never fail q8nn's configure. The child inherits the compilers and the search prefixes.
function(q8nn_probe_config_package package result_var)
  set(dir "${CMAKE_BINARY_DIR}/q8nn-probe/${package}")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.18)\n"
       "project(q8nn_probe_${package} LANGUAGES C CXX)\n"
       "find_package(${package} CONFIG REQUIRED)\n")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build"
            "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
            "-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}" "-DCMAKE_FIND_ROOT_PATH=${CMAKE_FIND_ROOT_PATH}"
            "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(status EQUAL 0)
    set(${result_var} TRUE PARENT_SCOPE)
    return()
  endif()
  # The first line that says what is missing, if the error output has one.
  set(reason "its CMake package does not load")
  string(REGEX MATCH "(Could NOT find|Could not find)[^\n]*" first "${err}")
  if(first)
    set(reason "${reason}: ${first}")
  endif()
  set(${result_var} FALSE PARENT_SCOPE)
  set(Q8NN_PROBE_REASON "${reason}" PARENT_SCOPE)
endfunction()
