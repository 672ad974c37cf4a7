# SPDX-License-Identifier: MIT
# BfSources.cmake — source lists are explicit; this checks a folder's files against its list.
#
# Every CMakeLists.txt names its sources one by one (a file added or removed is a visible change
# in review), and calls bf_check_sources() so that a file on disk that no list names (a new
# module, a new test that would silently never run) or a listed file that is gone stops the
# configure step with a message saying which file, which list and what to do.
#
#   bf_check_sources(LIST <variable name> PATTERN <glob relative to this folder>
#                    [EXCLUDE <file> ...])
#
# LIST names a variable holding file names relative to CMAKE_CURRENT_SOURCE_DIR; PATTERN is what
# the folder's files of that kind look like (e.g. "*.c", "unit/test_*.c"); EXCLUDE lists files
# matching PATTERN that are deliberately not in the list. The glob has CONFIGURE_DEPENDS so a new
# file is noticed by the next `cmake --build`, not only by a fresh configure; it only checks, it
# never decides what is compiled.
function(bf_check_sources)
  cmake_parse_arguments(ARG "" "LIST;PATTERN" "EXCLUDE" ${ARGN})
  set(listed ${${ARG_LIST}})
  file(RELATIVE_PATH here ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/CMakeLists.txt)
  file(GLOB found CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_PATTERN})
  set(problems "")
  foreach(f ${found})
    if(NOT f IN_LIST listed AND NOT f IN_LIST ARG_EXCLUDE)
      string(APPEND problems "\n  ${f} exists but is not in ${ARG_LIST}: add it to the list in ${here} (source lists are explicit), or delete the file")
    endif()
  endforeach()
  foreach(f ${listed})
    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${f})
      string(APPEND problems "\n  ${f} is in ${ARG_LIST} but does not exist: remove it from the list in ${here}")
    endif()
  endforeach()
  if(problems)
    message(FATAL_ERROR "source list ${ARG_LIST} does not match the files of ${here}:${problems}")
  endif()
endfunction()
