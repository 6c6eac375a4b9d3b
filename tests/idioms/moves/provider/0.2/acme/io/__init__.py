from acme.io.readers import read_table
