# SPDX-License-Identifier: MIT
# Packaging.cmake — install layout beyond the two programs, and the Debian package (CPack DEB).
#
# `cmake --install build [--prefix P]` installs P/bin/bulkfleet-{agent,coordinator} (top-level
# install rule), P/lib/systemd/system/bulkfleet-agent.service (ExecStart rewritten to P/bin) and
# P/share/bulkfleet/agent.env.example. `cd build && cpack -G DEB` builds bulkfleet_<ver>_<arch>.deb
# with prefix /usr; its maintainer scripts (packaging/debian/) create the unprivileged `bulkfleet`
# account and reload systemd. Runtime library dependencies come from dpkg-shlibdeps.
include(GNUInstallDirs)

set(BF_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "systemd system unit directory, relative to the install prefix")

# The unit in deploy/systemd/ is a valid unit for prefix /usr (systemd-analyze verify accepts it
# as is); at install time the program path follows the real prefix. This runs inside
# `cmake --install` and inside cpack, where CMAKE_INSTALL_PREFIX is the packaging prefix.
set(bf_unit_src ${PROJECT_SOURCE_DIR}/deploy/systemd/bulkfleet-agent.service)
set(bf_unit_out ${PROJECT_BINARY_DIR}/packaging/bulkfleet-agent.service)
install(CODE "
  file(READ \"${bf_unit_src}\" bf_unit)
  string(REPLACE \"/usr/bin/bulkfleet-\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/bulkfleet-\"
         bf_unit \"\${bf_unit}\")
  file(WRITE \"${bf_unit_out}\" \"\${bf_unit}\")
")
install(FILES ${bf_unit_out} DESTINATION ${BF_SYSTEMD_UNIT_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/agent.env.example
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bulkfleet)

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "bulkfleet")
set(CPACK_PACKAGE_VENDOR "bulkfleet")
set(CPACK_PACKAGE_CONTACT "bulkfleet maintainers <bulkfleet@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "distributed bulk-indexing load tester for Elasticsearch and OpenSearch")
set(CPACK_PACKAGE_DESCRIPTION
    "bulkfleet-coordinator runs a scenario matrix (shards x replicas x batch size x concurrency)\n\
across bulkfleet-agent processes on many load hosts and writes a results matrix with docs/s,\n\
latency percentiles and errors per cell. Includes the bulkfleet-agent systemd unit.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "net")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/debian/postinst;${PROJECT_SOURCE_DIR}/packaging/debian/prerm;${PROJECT_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Packages land in the build directory; nothing under the source tree.
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR})
include(CPack)
