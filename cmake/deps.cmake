# Debian packages: libsqlite3-dev zlib1g-dev libcjson-dev libtomlplusplus-dev libssl-dev, libisal-dev optional.
# cJSON is found by header and library, not by its CMake config, which names absolute /usr paths
# and breaks when the packages are unpacked into a prefix (shared/device/README.md).
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(Threads REQUIRED)
find_package(tomlplusplus CONFIG REQUIRED)
find_path(CJSON_INCLUDE_DIR cjson/cJSON.h REQUIRED)
find_library(CJSON_LIBRARY cjson REQUIRED)
find_path(ISAL_INCLUDE_DIR isa-l/igzip_lib.h)
find_library(ISAL_LIBRARY isal)

add_library(xp_deps INTERFACE)
add_library(xp::deps ALIAS xp_deps)
target_include_directories(xp_deps INTERFACE ${CJSON_INCLUDE_DIR})
target_link_libraries(xp_deps INTERFACE SQLite::SQLite3 ZLIB::ZLIB OpenSSL::Crypto Threads::Threads
                      tomlplusplus::tomlplusplus ${CJSON_LIBRARY} m ${CMAKE_DL_LIBS})
if(ISAL_INCLUDE_DIR AND ISAL_LIBRARY)
  target_include_directories(xp_deps INTERFACE ${ISAL_INCLUDE_DIR})
  target_link_libraries(xp_deps INTERFACE ${ISAL_LIBRARY})
  target_compile_definitions(xp_deps INTERFACE XP_HAVE_ISAL=1)
  message(STATUS "xp: inflating with ISA-L (${ISAL_LIBRARY})")
else()
  message(STATUS "xp: ISA-L not found, inflating with zlib")
endif()
