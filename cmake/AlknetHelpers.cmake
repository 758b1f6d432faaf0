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
  gtest_discover_tests(${T_NAME}
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
