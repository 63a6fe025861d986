-- profile_metadata over tests/data/basic.json
.headers on
.mode list
SELECT scope, key, value, byte_offset FROM profile_metadata('tests/data/basic.json');
