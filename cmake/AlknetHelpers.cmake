# Shared build settings for alknet's own targets.

# Warnings are errors for our code only; third-party headers come in as SYSTEM.
function(alknet_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
endfunction()

# alknet_add_test(NAME name SOURCES ... LIBS ... [LABELS ...])
# One GoogleTest executable registered with ctest test by test.
function(alknet_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  alknet_target_defaults(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  # NO_PRETTY_VALUES: CMake 3.25 keeps gtest's "# GetParam() = <value>" comment in the ctest
  # name of a test whose INSTANTIATE_TEST_SUITE_P has a name generator; for a struct that
  # value is its bytes (pointers included), so names changed from build to build and could
  # not be selected with -R. The generators' names alone are stable and readable.
  gtest_discover_tests(${T_NAME}
    NO_PRETTY_VALUES
    PROPERTIES LABELS "${T_LABELS}"
    DISCOVERY_TIMEOUT 60)
endfunction()

# alknet_embed_files(OUT_VAR NAMESPACE ns FILES ...)
# Turns files into a generated .cpp holding {relative name, contents} pairs, so
# shaders and templates are data in the binary, never listed by hand in C++.
function(alknet_embed_files out_var)
  cmake_parse_arguments(E "" "NAMESPACE;BASE_DIR;NAME" "FILES" ${ARGN})
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/${E_NAME}_embedded.cpp)
  add_custom_command(
    OUTPUT ${gen}
    COMMAND ${CMAKE_COMMAND} -DOUT=${gen} -DNAMESPACE=${E_NAMESPACE}
            -DBASE_DIR=${E_BASE_DIR} "-DFILES=${E_FILES}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${E_FILES} ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "Embedding ${E_NAME} files"
    VERBATIM)
  set(${out_var} ${gen} PARENT_SCOPE)
endfunction()

# alknet_add_extension(NAME SOURCES ... [JS file.js] [LIBS ...])
# A built-in JS module outside the runtime (libs/ext/<name>/, docs/runtime-modules.md): its
# native core and its JS half, embedded into namespace alknet::ext::<name>_js, as library
# alknet::ext_<name>. The sources include alknet/runtime/native_module.h (SpiderMonkey).
function(alknet_add_extension name)
  cmake_parse_arguments(X "" "JS" "SOURCES;LIBS" ${ARGN})
  set(target alknet_ext_${name})
  set(srcs ${X_SOURCES})
  if(X_JS)
    alknet_embed_files(js_cpp NAME ext_${name}_js NAMESPACE alknet::ext::${name}_js
                       BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR} FILES ${CMAKE_CURRENT_SOURCE_DIR}/${X_JS})
    list(APPEND srcs ${js_cpp})
  endif()
  add_library(${target} STATIC ${srcs})
  add_library(alknet::ext_${name} ALIAS ${target})
  alknet_target_defaults(${target})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${target} PUBLIC alknet::runtime ${X_LIBS} PRIVATE PkgConfig::MOZJS)
  # SpiderMonkey's headers trip these (see libs/runtime/CMakeLists.txt).
  target_compile_options(${target} PRIVATE -Wno-unused-parameter -Wno-invalid-offsetof
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-dangling-pointer>)
endfunction()

# alknet_library_tests(LIB): a target LIB_tests ("-" becomes "_") that builds every executable
# defined under libs/LIB, so that `cmake --build --target LIB_tests` and `ctest -L LIB` test one
# library without the app. Call after the libraries are added.
function(alknet_library_tests lib)
  set(dirs ${PROJECT_SOURCE_DIR}/libs/${lib})
  set(exes)
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(type STREQUAL "EXECUTABLE")
        list(APPEND exes ${t})
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
  endwhile()
  string(REPLACE "-" "_" name ${lib})
  add_custom_target(${name}_tests)
  if(exes)
    add_dependencies(${name}_tests ${exes})
  endif()
endfunction()

# alknet_prefix_labels(PREFIX): every test defined so far in the current directory gets the
# label PREFIX, and each of its labels L becomes PREFIX-L. Called at the end of the CMakeLists of
# tests that run the app (cli), of benchmarks (bench) and of end-to-end corpora (e2e), so that
# they never carry a library's label: `ctest -L compute` needs only compute's build.
function(alknet_prefix_labels prefix)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} LABELS labels)
    set(new ${prefix})
    if(labels)
      foreach(l IN LISTS labels)
        if(NOT l STREQUAL prefix)
          list(APPEND new ${prefix}-${l})
        endif()
      endforeach()
    endif()
    set_tests_properties(${t} PROPERTIES LABELS "${new}")
  endforeach()
endfunction()
