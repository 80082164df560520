SELECT load_extension('./libevil.so');
