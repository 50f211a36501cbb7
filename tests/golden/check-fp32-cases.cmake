# Regenerates fp32-cases.h into OUT with GEN (through EMULATOR, the cross build's
# CMAKE_CROSSCOMPILING_EMULATOR, when set) and fails when it differs from HEADER.
execute_process(COMMAND ${EMULATOR} ${GEN} ${OUT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "gen_fp32_cases failed (${result})")
endif()
file(READ ${HEADER} want)
file(READ ${OUT} got)
if(NOT want STREQUAL got)
  message(FATAL_ERROR "tests/golden/fp32-cases.h is not what XNNPACK gives now: regenerate it with gen_fp32_cases")
endif()
