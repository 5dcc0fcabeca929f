// The translation unit that builds cmake/PrecompiledHeaders.cmake's header.
