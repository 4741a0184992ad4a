{
  "targets": [
    {
      "target_name": "offload_studio_native",
      "sources": [
        "src/addon.cpp",
        "src/simd_path.cpp",
        "src/adam_kernels.cpp",
        "src/triad.cpp",
        "src/measure_cpu.cpp",
        "src/cuda_copy.cpp"
      ],
      "dependencies": ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=c++17"],
      "cflags_cc": ["-std=c++20", "-O3", "-ffp-contract=off", "-pthread", "-Wall", "-Wextra"],
      "ldflags": ["-pthread"],
      "libraries": ["-ldl"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++20",
        "OTHER_CPLUSPLUSFLAGS": ["-ffp-contract=off"]
      },
      "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++20"] } }
    }
  ]
}
