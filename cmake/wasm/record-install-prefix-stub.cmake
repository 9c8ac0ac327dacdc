# Passed as -DCMAKE_PROJECT_INCLUDE_BEFORE=<this file> when configuring LLVM/MLIR
# with Debian's Emscripten 3.1.6 toolchain under CMake 3.25: something in that
# combination includes Platform/UnixPaths.cmake outside
# CMakeSystemSpecificInformation.cmake, which is where CMake defines
# _cmake_record_install_prefix, and configure stops with
# 'Unknown CMake command "_cmake_record_install_prefix"'. An empty stand-in is
# enough: the function only records CMAKE_INSTALL_PREFIX for later filtering
# of system search paths.
if(NOT COMMAND _cmake_record_install_prefix)
  macro(_cmake_record_install_prefix)
  endmacro()
endif()
