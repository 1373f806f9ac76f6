# Read by llama.cpp's CMake right after its project() call (CMAKE_PROJECT_llama.cpp_INCLUDE, set in the Makefile's
# CMAKE_ARGS) while `make setup` builds llama-cpp-python.
#
# llama-cpp-python forces LLAMA_BUILD_COMMON on, but its Python code loads only libllama and libggml*: libllama-common
# (argument parsing, chat-template parsers, downloads, JSON schemas: the helpers of llama.cpp's own programs) is
# compiled, installed and never loaded. Not building it takes that share off the build; llama.cpp guards everything
# that needs it (tests, examples, tools, its install rule) by the same option.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp's common library: not loaded by llama-cpp-python" FORCE)
