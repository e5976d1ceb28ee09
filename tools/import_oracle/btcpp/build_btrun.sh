#!/bin/sh
# Build the oracle harness against the static BT.CPP 4.10.0 library in ./build
set -e
cd "$(dirname "$0")"
nice g++ -std=c++17 -O2 -o btrun btrun.cpp -Isrc/include build/libbehaviortree_cpp.a build/3rdparty/tinyxml2/libtinyxml2.a build/3rdparty/minitrace/libminitrace.a -lpthread -ldl
