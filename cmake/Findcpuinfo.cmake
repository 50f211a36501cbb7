# Finds cpuinfo through pkg-config (Debian's libcpuinfo-dev ships libcpuinfo.pc), falling back to a
# plain header/library search (cross builds). Defines cpuinfo::cpuinfo.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_CPUINFO QUIET libcpuinfo)
endif()
find_path(CPUINFO_INCLUDE_DIR cpuinfo.h HINTS ${PC_CPUINFO_INCLUDE_DIRS})
find_library(CPUINFO_LIBRARY NAMES cpuinfo HINTS ${PC_CPUINFO_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(cpuinfo REQUIRED_VARS CPUINFO_LIBRARY CPUINFO_INCLUDE_DIR)
if(cpuinfo_FOUND AND NOT TARGET cpuinfo::cpuinfo)
  add_library(cpuinfo::cpuinfo UNKNOWN IMPORTED)
  set_target_properties(cpuinfo::cpuinfo PROPERTIES
    IMPORTED_LOCATION "${CPUINFO_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${CPUINFO_INCLUDE_DIR}")
endif()
mark_as_advanced(CPUINFO_INCLUDE_DIR CPUINFO_LIBRARY)
