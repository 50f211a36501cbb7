# Finds pthreadpool (Debian's libpthreadpool-dev ships neither a CMake package nor a .pc file).
# Defines pthreadpool::pthreadpool.
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h)
find_library(PTHREADPOOL_LIBRARY NAMES pthreadpool)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(pthreadpool REQUIRED_VARS PTHREADPOOL_LIBRARY PTHREADPOOL_INCLUDE_DIR)
if(pthreadpool_FOUND AND NOT TARGET pthreadpool::pthreadpool)
  find_package(Threads REQUIRED)
  add_library(pthreadpool::pthreadpool UNKNOWN IMPORTED)
  set_target_properties(pthreadpool::pthreadpool PROPERTIES
    IMPORTED_LOCATION "${PTHREADPOOL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PTHREADPOOL_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(PTHREADPOOL_INCLUDE_DIR PTHREADPOOL_LIBRARY)
