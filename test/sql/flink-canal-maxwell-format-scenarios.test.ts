/**
 * Flink's tests of the `canal-json` and `maxwell-json` changelog formats, ported against
 * Weir's formats (src/sql/connectors/formats/canal-json.ts, maxwell-json.ts) and, for the
 * options and METADATA, through a `kafka` table's SQL (its decoder taken from the planned job,
 * so no broker is needed). Flink's resource files (canal-data.txt, canal-data-filter-table.txt,
 * maxwell-data.txt under flink-formats/flink-json/src/test/resources) are copied below as data;
 * Flink's expected changelogs and written texts are asserted exactly, each change shown as
 * Flink's RowData prints it (`+I(101,scooter,Small 2-wheel scooter,3.14)`, a FLOAT as Java's
 * Float.toString). The Flink files, under flink-formats/flink-json/src/test/java/org/apache/
 * flink/formats/json/:
 * [canal-serde] canal/CanalJsonSerDeSchemaTest.java, [canal-deser] canal/
 * CanalJsonDeserializationSchemaTest.java (an older copy of its testSerializationDeserialization),
 * [canal-factory] canal/CanalJsonFormatFactoryTest.java, [maxwell-serde] maxwell/
 * MaxwellJsonSerDerTest.java, [maxwell-factory] maxwell/MaxwellJsonFormatFactoryTest.java.
 *
 * Ported: [canal-serde] testSerializationDeserialization, testFilteringTables,
 * testDeserializeNullRow, testDeserializationWithMetadata (both files; also through SQL with
 * `value.*` METADATA columns); [canal-deser] testDeserialization (the same changelog; its
 * older canal-data.txt had 106's description not null, the current one, copied here, has it
 * null); [canal-factory] testDefaultOptions, testUserDefinedOptions (as what the options do to
 * the written text and the records read, since Weir has no schema objects to compare),
 * testInvalidIgnoreParseError, testInvalidOptionForTimestampFormat,
 * testInvalidOptionForMapNullKeyMode; [maxwell-serde] testSerializationDeserialization,
 * testDeserializationWithMetadata (also through SQL); [maxwell-factory] testSeDeSchema (as
 * canal's user-defined options), testInvalidIgnoreParseError,
 * testInvalidOptionForTimestampFormat, testInvalidOptionForMapNullKeyMode.
 *
 * A deliberate difference (tested last): Flink's canal reader takes a field as changed when it
 * is listed in any entry of `old`, not only the row's own, so in a batch whose rows changed
 * different fields a row's before image gets nulls for the others' fields; Weir reads each
 * row's own entry. Flink's data lists the same fields in each entry, so its changelogs agree.
 *
 * Not ported:
 * - [canal-serde, maxwell-serde] testParseNonNumericNumbers and [canal-factory]
 *   testInvalidOptionForAllowNonNumericNumbers: `<format>.allow-non-numeric-numbers` (bare
 *   NaN and Infinity in the JSON text) is not an option of Weir's JSON formats; such a record
 *   is not JSON and fails (or is skipped with `ignore-parse-errors`).
 * - Flink's error texts for bad option values (`Unrecognized option for boolean: abc...`,
 *   `Unsupported value 'test' for timestamp-format.standard...`): Weir refuses the same values
 *   with its own option errors, naming the option and its allowed values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConsumerRecord } from '../../src/connectors/kafka/index.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import type { Row } from '../../src/sql/connectors/connector.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { canalJsonFormat } from '../../src/sql/connectors/formats/canal-json.js';
import type { FormatColumn } from '../../src/sql/connectors/formats/format-types.js';
import {
  changelogJsonFormat,
  maxwellJsonFormat,
} from '../../src/sql/connectors/formats/maxwell-json.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { runtime } from '../../src/sql/expressions/runtime.js';
import { graphOf } from '../../src/sql/planner/changelog-plan.js';
import { type LogicalType, T } from '../../src/sql/types/logical-type.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

/** Flink's canal-data.txt: Canal's messages for the changes to `product` (in Flink's test's comment), a DDL message among them. */
const CANAL_DATA = [
  '{"data":[{"id":"101","name":"scooter","description":"Small 2-wheel scooter","weight":"3.14"},{"id":"102","name":"car battery","description":"12V car battery","weight":"8.1"},{"id":"103","name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"},{"id":"104","name":"hammer","description":"12oz carpenter\'s hammer","weight":"0.75"},{"id":"105","name":"hammer","description":"14oz carpenter\'s hammer","weight":"0.875"},{"id":"106","name":"hammer","description":null,"weight":"1.0"},{"id":"107","name":"rocks","description":"box of assorted rocks","weight":"5.3"},{"id":"108","name":"jacket","description":"water resistent black wind breaker","weight":"0.1"},{"id":"109","name":"spare tire","description":"24 inch spare tire","weight":"22.2"}],"database":"inventory","es":1589373515000,"id":3,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373515477,"type":"INSERT"}',
  '{"data":[{"id":"106","name":"hammer","description":"18oz carpenter hammer","weight":"1.0"}],"database":"inventory","es":1589373546000,"id":4,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":[{"description":null}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373546301,"type":"UPDATE"}',
  '{"data":[{"id":"107","name":"rocks","description":"box of assorted rocks","weight":"5.1"}],"database":"inventory","es":1589373549000,"id":5,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":[{"weight":"5.3"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373549489,"type":"UPDATE"}',
  '{"data":[{"id":"110","name":"jacket","description":"water resistent white wind breaker","weight":"0.2"}],"database":"inventory","es":1589373552000,"id":6,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373552882,"type":"INSERT"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.18"}],"database":"inventory","es":1589373555000,"id":7,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373555457,"type":"INSERT"}',
  '{"data":[{"id":"110","name":"jacket","description":"new water resistent white wind breaker","weight":"0.5"}],"database":"inventory","es":1589373558000,"id":8,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":[{"description":"water resistent white wind breaker","weight":"0.2"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373558230,"type":"UPDATE"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.17"}],"database":"inventory","es":1589373560000,"id":9,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":[{"weight":"5.18"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373560798,"type":"UPDATE"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.17"}],"database":"inventory","es":1589373563000,"id":10,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373563798,"type":"DELETE"}',
  '{"data":[{"id":"101","name":"scooter","description":"Small 2-wheel scooter","weight":"5.17"},{"id":"102","name":"car battery","description":"12V car battery","weight":"5.17"}],"database":"inventory","es":1589373753000,"id":11,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":[{"weight":"3.14"},{"weight":"8.1"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589373753939,"type":"UPDATE"}',
  '{"data":null,"database":"inventory","es":1589373566000,"id":13,"isDdl":true,"mysqlType":null,"old":null,"pkNames":null,"sql":"CREATE TABLE `xj_`.`user02` (`uid` int(0) NOT NULL,`uname` varchar(255) NULL, PRIMARY KEY (`uid`))","sqlType":null,"table":"user02","ts":1589373566000,"type":"CREATE"}',
  '{"data":[{"id":"102","name":"car battery","description":"12V car battery","weight":"5.17"},{"id":"103","name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"}],"database":"inventory","es":1589374013000,"id":12,"isDdl":false,"mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"products2","ts":1589374013680,"type":"DELETE"}',
];

/** Flink's canal-data-filter-table.txt: the same changes in database `mydb`, mixed with changes to `orders` and `project`. */
const CANAL_DATA_FILTER_TABLE = [
  '{"data":[{"id":"101","name":"scooter","description":"Small 2-wheel scooter","weight":"3.14"},{"id":"102","name":"car battery","description":"12V car battery","weight":"8.1"},{"id":"103","name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"},{"id":"104","name":"hammer","description":"12oz carpenter\'s hammer","weight":"0.75"},{"id":"105","name":"hammer","description":"14oz carpenter\'s hammer","weight":"0.875"},{"id":"106","name":"hammer","description":null,"weight":"1.0"},{"id":"107","name":"rocks","description":"box of assorted rocks","weight":"5.3"},{"id":"108","name":"jacket","description":"water resistent black wind breaker","weight":"0.1"},{"id":"109","name":"spare tire","description":"24 inch spare tire","weight":"22.2"}],"database":"mydb","es":1598944132000,"id":1,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944146308,"type":"INSERT"}',
  '{"data":[{"id":"106","name":"hammer","description":"18oz carpenter hammer","weight":"1.0"}],"database":"mydb","es":1598944202000,"id":2,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":[{"description":null}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944202218,"type":"UPDATE"}',
  '{"data":null,"database":"mydb","es":1598944271000,"id":3,"isDdl":true,"mysqlType":null,"old":null,"pkNames":null,"sql":"CREATE TABLE orders (\\n  order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,\\n  order_date DATE NOT NULL,\\n  purchaser INTEGER NOT NULL,\\n  quantity INTEGER NOT NULL,\\n  product_id INTEGER NOT NULL\\n) AUTO_INCREMENT = 10001","sqlType":null,"table":"orders","ts":1598944271192,"type":"CREATE"}',
  '{"data":[{"order_number":"10001","order_date":"2016-01-16","purchaser":"1001","quantity":"1","product_id":"102"},{"order_number":"10002","order_date":"2016-01-17","purchaser":"1002","quantity":"2","product_id":"105"},{"order_number":"10003","order_date":"2016-02-19","purchaser":"1002","quantity":"2","product_id":"106"},{"order_number":"10004","order_date":"2016-02-21","purchaser":"1003","quantity":"1","product_id":"107"}],"database":"mydb","es":1598944275000,"id":4,"isDdl":false,"mysqlType":{"order_number":"INTEGER","order_date":"DATE","purchaser":"INTEGER","quantity":"INTEGER","product_id":"INTEGER"},"old":null,"pkNames":["order_number"],"sql":"","sqlType":{"order_number":4,"order_date":91,"purchaser":4,"quantity":4,"product_id":4},"table":"orders","ts":1598944275018,"type":"INSERT"}',
  '{"data":[{"id":"107","name":"rocks","description":"box of assorted rocks","weight":"5.1"}],"database":"mydb","es":1598944279000,"id":5,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":[{"weight":"5.3"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944279665,"type":"UPDATE"}',
  '{"data":[{"id":"110","name":"jacket","description":"water resistent white wind breaker","weight":"0.2"}],"database":"mydb","es":1598944288000,"id":6,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944288394,"type":"INSERT"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.18"}],"database":"mydb","es":1598944288000,"id":6,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944288394,"type":"INSERT"}',
  '{"data":[{"id":"110","name":"jacket","description":"new water resistent white wind breaker","weight":"0.5"}],"database":"mydb","es":1598944288000,"id":7,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":[{"description":"water resistent white wind breaker","weight":"0.2"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944288717,"type":"UPDATE"}',
  '{"data":[{"order_number":"10001","order_date":"2016-01-16","purchaser":"1001","quantity":"3","product_id":"102"}],"database":"mydb","es":1598944331000,"id":8,"isDdl":false,"mysqlType":{"order_number":"INTEGER","order_date":"DATE","purchaser":"INTEGER","quantity":"INTEGER","product_id":"INTEGER"},"old":[{"quantity":"1"}],"pkNames":["order_number"],"sql":"","sqlType":{"order_number":4,"order_date":91,"purchaser":4,"quantity":4,"product_id":4},"table":"orders","ts":1598944331870,"type":"UPDATE"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.17"}],"database":"mydb","es":1598944337000,"id":9,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":[{"weight":"5.18"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944337341,"type":"UPDATE"}',
  '{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter ","weight":"5.17"}],"database":"mydb","es":1598944337000,"id":9,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944337341,"type":"DELETE"}',
  '{"data":[{"id":"101","name":"scooter","description":"Small 2-wheel scooter","weight":"5.17"},{"id":"102","name":"car battery","description":"12V car battery","weight":"5.17"}],"database":"mydb","es":1598944337000,"id":10,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":[{"weight":"3.14"},{"weight":"8.1"}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944337663,"type":"UPDATE"}',
  '{"data":[{"order_number":"10002","order_date":"2016-01-17","purchaser":"1002","quantity":"2","product_id":"105"}],"database":"mydb","es":1598944374000,"id":11,"isDdl":false,"mysqlType":{"order_number":"INTEGER","order_date":"DATE","purchaser":"INTEGER","quantity":"INTEGER","product_id":"INTEGER"},"old":null,"pkNames":["order_number"],"sql":"","sqlType":{"order_number":4,"order_date":91,"purchaser":4,"quantity":4,"product_id":4},"table":"orders","ts":1598944374999,"type":"DELETE"}',
  '{"data":[{"id":"102","name":"car battery","description":"12V car battery","weight":"5.17"},{"id":"103","name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"}],"database":"mydb","es":1598944418000,"id":12,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"product","ts":1598944418418,"type":"DELETE"}',
  '{"data":null,"database":"mydb","es":1598944271000,"id":13,"isDdl":true,"mysqlType":null,"old":null,"pkNames":null,"sql":"CREATE TABLE project (\\n  id VARCHAR(255) NOT NULL,\\n  name VARCHAR(255) NOT NULL,\\n  description VARCHAR(255) NOT NULL,\\n  weight FLOAT NOT NULL\\n)","sqlType":null,"table":"projects","ts":1598944271192,"type":"CREATE"}',
  '{"data":[{"id":"A101","name":"scooter","description":"Small 2-wheel scooter","weight":"3.14"},{"id":"A102","name":"car battery","description":"12V car battery","weight":"8.1"},{"id":"A103","name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"},{"id":"A104","name":"hammer","description":"12oz carpenter\'s hammer","weight":"0.75"},{"id":"A105","name":"hammer","description":"14oz carpenter\'s hammer","weight":"0.875"},{"id":"A106","name":"hammer","description":"16oz carpenter\'s hammer","weight":"1.0"},{"id":"A107","name":"rocks","description":"box of assorted rocks","weight":"5.3"},{"id":"A108","name":"jacket","description":"water resistent black wind breaker","weight":"0.1"},{"id":"A109","name":"spare tire","description":"24 inch spare tire","weight":"22.2"}],"database":"mydb","es":1598944132000,"id":14,"isDdl":false,"mysqlType":{"id":"int(11)","name":"varchar(255)","description":"varchar(512)","weight":"float"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4,"name":12,"description":12,"weight":7},"table":"project","ts":1598944146308,"type":"INSERT"}',
];

/** Flink's maxwell-data.txt: Maxwell's messages for the same changes (106's description not null). */
const MAXWELL_DATA = [
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":0,"data":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":1,"data":{"id":102,"name":"car battery","description":"12V car battery","weight":8.1},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":2,"data":{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":3,"data":{"id":104,"name":"hammer","description":"12oz carpenter\'s hammer","weight":0.75},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":4,"data":{"id":105,"name":"hammer","description":"14oz carpenter\'s hammer","weight":0.875},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":5,"data":{"id":106,"name":"hammer","description":"16oz carpenter\'s hammer","weight":1.0},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":6,"data":{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"xoffset":7,"data":{"id":108,"name":"jacket","description":"water resistent black wind breaker","weight":0.1},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684883,"xid":7125,"commit":true,"data":{"id":109,"name":"spare tire","description":"24 inch spare tire","weight":22.2},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684893,"xid":7152,"commit":true,"data":{"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1.0},"old":{"description":"16oz carpenter\'s hammer"},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684897,"xid":7169,"commit":true,"data":{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.1},"old":{"weight":5.3},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684900,"xid":7186,"commit":true,"data":{"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"insert","ts":1596684904,"xid":7201,"commit":true,"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684906,"xid":7216,"commit":true,"data":{"id":110,"name":"jacket","description":"new water resistent white wind breaker","weight":0.5},"old":{"description":"water resistent white wind breaker","weight":0.2},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684912,"xid":7235,"commit":true,"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17},"old":{"weight":5.18},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"delete","ts":1596684914,"xid":7250,"commit":true,"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684928,"xid":7291,"xoffset":0,"data":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":5.17},"old":{"weight":3.14},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"update","ts":1596684928,"xid":7291,"commit":true,"data":{"id":102,"name":"car battery","description":"12V car battery","weight":5.17},"old":{"weight":8.1},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"delete","ts":1596684938,"xid":7322,"xoffset":0,"data":{"id":102,"name":"car battery","description":"12V car battery","weight":5.17},"primary_key_columns": ["id"]}',
  '{"database":"test","table":"product","type":"delete","ts":1596684938,"xid":7322,"commit":true,"data":{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8},"primary_key_columns": ["id"]}',
];

/** Flink's expected changelog of canal-data.txt (runTest of CanalJsonSerDeSchemaTest). */
const CANAL_CHANGELOG = [
  '+I(101,scooter,Small 2-wheel scooter,3.14)',
  '+I(102,car battery,12V car battery,8.1)',
  '+I(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)',
  "+I(104,hammer,12oz carpenter's hammer,0.75)",
  "+I(105,hammer,14oz carpenter's hammer,0.875)",
  '+I(106,hammer,null,1.0)',
  '+I(107,rocks,box of assorted rocks,5.3)',
  '+I(108,jacket,water resistent black wind breaker,0.1)',
  '+I(109,spare tire,24 inch spare tire,22.2)',
  '-U(106,hammer,null,1.0)',
  '+U(106,hammer,18oz carpenter hammer,1.0)',
  '-U(107,rocks,box of assorted rocks,5.3)',
  '+U(107,rocks,box of assorted rocks,5.1)',
  '+I(110,jacket,water resistent white wind breaker,0.2)',
  '+I(111,scooter,Big 2-wheel scooter ,5.18)',
  '-U(110,jacket,water resistent white wind breaker,0.2)',
  '+U(110,jacket,new water resistent white wind breaker,0.5)',
  '-U(111,scooter,Big 2-wheel scooter ,5.18)',
  '+U(111,scooter,Big 2-wheel scooter ,5.17)',
  '-D(111,scooter,Big 2-wheel scooter ,5.17)',
  '-U(101,scooter,Small 2-wheel scooter,3.14)',
  '+U(101,scooter,Small 2-wheel scooter,5.17)',
  '-U(102,car battery,12V car battery,8.1)',
  '+U(102,car battery,12V car battery,5.17)',
  '-D(102,car battery,12V car battery,5.17)',
  '-D(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)',
];

/** Flink's expected canal-json text of that changelog (ISO-8601, LITERAL 'null', decimals as plain numbers). */
const CANAL_SERIALIZED = [
  '{"data":[{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14}],"type":"INSERT"}',
  '{"data":[{"id":102,"name":"car battery","description":"12V car battery","weight":8.1}],"type":"INSERT"}',
  '{"data":[{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8}],"type":"INSERT"}',
  '{"data":[{"id":104,"name":"hammer","description":"12oz carpenter\'s hammer","weight":0.75}],"type":"INSERT"}',
  '{"data":[{"id":105,"name":"hammer","description":"14oz carpenter\'s hammer","weight":0.875}],"type":"INSERT"}',
  '{"data":[{"id":106,"name":"hammer","description":null,"weight":1.0}],"type":"INSERT"}',
  '{"data":[{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3}],"type":"INSERT"}',
  '{"data":[{"id":108,"name":"jacket","description":"water resistent black wind breaker","weight":0.1}],"type":"INSERT"}',
  '{"data":[{"id":109,"name":"spare tire","description":"24 inch spare tire","weight":22.2}],"type":"INSERT"}',
  '{"data":[{"id":106,"name":"hammer","description":null,"weight":1.0}],"type":"DELETE"}',
  '{"data":[{"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1.0}],"type":"INSERT"}',
  '{"data":[{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3}],"type":"DELETE"}',
  '{"data":[{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.1}],"type":"INSERT"}',
  '{"data":[{"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2}],"type":"INSERT"}',
  '{"data":[{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18}],"type":"INSERT"}',
  '{"data":[{"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2}],"type":"DELETE"}',
  '{"data":[{"id":110,"name":"jacket","description":"new water resistent white wind breaker","weight":0.5}],"type":"INSERT"}',
  '{"data":[{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18}],"type":"DELETE"}',
  '{"data":[{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17}],"type":"INSERT"}',
  '{"data":[{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17}],"type":"DELETE"}',
  '{"data":[{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14}],"type":"DELETE"}',
  '{"data":[{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":5.17}],"type":"INSERT"}',
  '{"data":[{"id":102,"name":"car battery","description":"12V car battery","weight":8.1}],"type":"DELETE"}',
  '{"data":[{"id":102,"name":"car battery","description":"12V car battery","weight":5.17}],"type":"INSERT"}',
  '{"data":[{"id":102,"name":"car battery","description":"12V car battery","weight":5.17}],"type":"DELETE"}',
  '{"data":[{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8}],"type":"DELETE"}',
];

/** Flink's expected changelog of maxwell-data.txt (MaxwellJsonSerDerTest.testSerializationDeserialization). */
const MAXWELL_CHANGELOG = [
  '+I(101,scooter,Small 2-wheel scooter,3.14)',
  '+I(102,car battery,12V car battery,8.1)',
  '+I(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)',
  "+I(104,hammer,12oz carpenter's hammer,0.75)",
  "+I(105,hammer,14oz carpenter's hammer,0.875)",
  "+I(106,hammer,16oz carpenter's hammer,1.0)",
  '+I(107,rocks,box of assorted rocks,5.3)',
  '+I(108,jacket,water resistent black wind breaker,0.1)',
  '+I(109,spare tire,24 inch spare tire,22.2)',
  "-U(106,hammer,16oz carpenter's hammer,1.0)",
  '+U(106,hammer,18oz carpenter hammer,1.0)',
  '-U(107,rocks,box of assorted rocks,5.3)',
  '+U(107,rocks,box of assorted rocks,5.1)',
  '+I(110,jacket,water resistent white wind breaker,0.2)',
  '+I(111,scooter,Big 2-wheel scooter ,5.18)',
  '-U(110,jacket,water resistent white wind breaker,0.2)',
  '+U(110,jacket,new water resistent white wind breaker,0.5)',
  '-U(111,scooter,Big 2-wheel scooter ,5.18)',
  '+U(111,scooter,Big 2-wheel scooter ,5.17)',
  '-D(111,scooter,Big 2-wheel scooter ,5.17)',
  '-U(101,scooter,Small 2-wheel scooter,3.14)',
  '+U(101,scooter,Small 2-wheel scooter,5.17)',
  '-U(102,car battery,12V car battery,8.1)',
  '+U(102,car battery,12V car battery,5.17)',
  '-D(102,car battery,12V car battery,5.17)',
  '-D(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)',
];

/** Flink's expected maxwell-json text of that changelog (SQL timestamps, LITERAL 'null', plain decimals). */
const MAXWELL_SERIALIZED = [
  '{"data":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14},"type":"insert"}',
  '{"data":{"id":102,"name":"car battery","description":"12V car battery","weight":8.1},"type":"insert"}',
  '{"data":{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8},"type":"insert"}',
  '{"data":{"id":104,"name":"hammer","description":"12oz carpenter\'s hammer","weight":0.75},"type":"insert"}',
  '{"data":{"id":105,"name":"hammer","description":"14oz carpenter\'s hammer","weight":0.875},"type":"insert"}',
  '{"data":{"id":106,"name":"hammer","description":"16oz carpenter\'s hammer","weight":1.0},"type":"insert"}',
  '{"data":{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3},"type":"insert"}',
  '{"data":{"id":108,"name":"jacket","description":"water resistent black wind breaker","weight":0.1},"type":"insert"}',
  '{"data":{"id":109,"name":"spare tire","description":"24 inch spare tire","weight":22.2},"type":"insert"}',
  '{"data":{"id":106,"name":"hammer","description":"16oz carpenter\'s hammer","weight":1.0},"type":"delete"}',
  '{"data":{"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1.0},"type":"insert"}',
  '{"data":{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3},"type":"delete"}',
  '{"data":{"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.1},"type":"insert"}',
  '{"data":{"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2},"type":"insert"}',
  '{"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18},"type":"insert"}',
  '{"data":{"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2},"type":"delete"}',
  '{"data":{"id":110,"name":"jacket","description":"new water resistent white wind breaker","weight":0.5},"type":"insert"}',
  '{"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18},"type":"delete"}',
  '{"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17},"type":"insert"}',
  '{"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17},"type":"delete"}',
  '{"data":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14},"type":"delete"}',
  '{"data":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":5.17},"type":"insert"}',
  '{"data":{"id":102,"name":"car battery","description":"12V car battery","weight":8.1},"type":"delete"}',
  '{"data":{"id":102,"name":"car battery","description":"12V car battery","weight":5.17},"type":"insert"}',
  '{"data":{"id":102,"name":"car battery","description":"12V car battery","weight":5.17},"type":"delete"}',
  '{"data":{"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8},"type":"delete"}',
];

const FLOAT: LogicalType = { kind: 'FLOAT', nullable: true };

/** Flink's PHYSICAL_DATA_TYPE of both test files: id INT NOT NULL, name, description, weight FLOAT. */
const PRODUCT: readonly FormatColumn[] = [
  { name: 'id', type: T.int('INTEGER', false) },
  { name: 'name', type: T.string() },
  { name: 'description', type: T.string() },
  { name: 'weight', type: FLOAT },
];

/** A change as Flink's RowData.toString prints it: `+I(101,scooter,...,3.14)`. */
function show(change: Change<Row>): string {
  // Column 3 is the FLOAT weight: Java's Float.toString (`1.0`, `3.14`), not the double's digits.
  const cells = change.value.map((v, i) =>
    v === null ? 'null' : i === 3 ? runtime.formatFloat(v as number) : String(v),
  );
  return `${change.kind}(${cells.join(',')})`;
}

function decodeAll(
  format: { decode(bytes: Buffer | undefined): Change<Row>[] },
  lines: readonly string[],
): Change<Row>[] {
  return lines.flatMap((line) => format.decode(Buffer.from(line, 'utf8')));
}

function encodeAll(
  format: { encode(change: Change<Row>): Buffer },
  changes: readonly Change<Row>[],
): string[] {
  return changes.map((c) => format.encode(c).toString('utf8'));
}

/** The changes a kafka table's source decodes from one record (its planned decoder; no broker). */
function tableDecoder(ddl: string, table: string): (value: string) => Change<Row>[] {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  tEnv.sqlQuery(`SELECT * FROM ${table}`).toChangelogStream().sinkTo(new CollectSink());
  const node = graphOf(env).nodes.find((n) => n.kind === 'source');
  const source = (node as unknown as { source: { config: { decodeRecord: unknown } } }).source;
  const decode = source.config.decodeRecord as (r: KafkaConsumerRecord) => Change<Row>[];
  let offset = 0;
  return (value) =>
    decode({
      topic: 't',
      partition: 0,
      offset: offset++,
      timestamp: 0,
      key: undefined,
      value: Buffer.from(value, 'utf8'),
      headers: [],
    });
}

const KAFKA = `'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1'`;
const PRODUCT_COLUMNS = 'id INT NOT NULL, name STRING, description STRING, weight FLOAT';

/** The error of planning a read of a table declared with `options`. */
function planError(format: string, options: string): string {
  try {
    tableDecoder(
      `CREATE TABLE p (${PRODUCT_COLUMNS}) WITH (${KAFKA}, 'format' = '${format}'${options})`,
      'p',
    );
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return 'no error';
}

describe('canal-json', () => {
  it('[canal-serde] testSerializationDeserialization, [canal-deser] testDeserialization: reads canal-data.txt into the changelog and writes it back', () => {
    const format = canalJsonFormat(PRODUCT, {
      ignoreParseErrors: false,
      timestampStandard: 'ISO-8601',
      mapNullKeyMode: 'LITERAL',
      mapNullKeyLiteral: 'null',
      decimalAsPlainNumber: true,
    });
    const changes = decodeAll(format, CANAL_DATA);
    expect(changes.map(show)).toEqual(CANAL_CHANGELOG);
    expect(encodeAll(format, changes)).toEqual(CANAL_SERIALIZED);
  });

  it('[canal-serde] testFilteringTables: database.include ^my.* and table.include ^prod.* keep only product', () => {
    const format = canalJsonFormat(PRODUCT, { databaseInclude: '^my.*', tableInclude: '^prod.*' });
    const changes = decodeAll(format, CANAL_DATA_FILTER_TABLE);
    expect(changes.map(show)).toEqual(CANAL_CHANGELOG);
    // Without the filters the `orders` rows do not fit the columns (no id), and fail.
    expect(() => decodeAll(canalJsonFormat(PRODUCT), CANAL_DATA_FILTER_TABLE)).toThrow(
      "field 'data[0].id' is null but the column is INT NOT NULL",
    );
    // Through SQL, with the options of Flink's table.
    const decode = tableDecoder(
      `CREATE TABLE p (${PRODUCT_COLUMNS}) WITH (${KAFKA}, 'format' = 'canal-json',
        'canal-json.database.include' = '^my.*', 'canal-json.table.include' = '^prod.*')`,
      'p',
    );
    expect(CANAL_DATA_FILTER_TABLE.flatMap(decode).map(show)).toEqual(CANAL_CHANGELOG);
  });

  it('[canal-serde] testDeserializeNullRow: no bytes and empty bytes give no changes', () => {
    const format = canalJsonFormat(PRODUCT, {
      metadata: [
        'database',
        'table',
        'sql-type',
        'pk-names',
        'ingestion-timestamp',
        'event-timestamp',
      ],
    });
    expect(format.decode(undefined)).toEqual([]);
    expect(format.decode(Buffer.alloc(0))).toEqual([]);
  });

  it('[canal-serde] testDeserializationWithMetadata: every metadata key after the columns, first line of each file', () => {
    const cases = [
      [CANAL_DATA, {}, 'inventory', 'products2', 1589373515477, 1589373515000],
      [
        CANAL_DATA_FILTER_TABLE,
        { databaseInclude: 'mydb', tableInclude: 'product' },
        'mydb',
        'product',
        1598944146308,
        1598944132000,
      ],
    ] as const;
    for (const [lines, include, database, table, ts, es] of cases) {
      const format = canalJsonFormat(PRODUCT, {
        ...include,
        metadata: [
          'database',
          'table',
          'sql-type',
          'pk-names',
          'ingestion-timestamp',
          'event-timestamp',
        ],
      });
      const changes = format.decode(Buffer.from(lines[0] as string, 'utf8'));
      expect(changes).toHaveLength(9);
      const row = (changes[0] as Change<Row>).value;
      expect(row.slice(0, 3)).toEqual([101, 'scooter', 'Small 2-wheel scooter']);
      expect(row[3]).toBe(Math.fround(3.14));
      expect(row[4]).toBe(database);
      expect(row[5]).toBe(table);
      expect((row[6] as Map<string, unknown>).size).toBe(4);
      expect((row[7] as string[])[0]).toBe('id');
      expect(row[8]).toBe(ts);
      expect(row[9]).toBe(es);
    }
    // Through SQL: `value.<key>` METADATA columns, declared in another order.
    const decode = tableDecoder(
      `CREATE TABLE p (${PRODUCT_COLUMNS},
        event_time TIMESTAMP_LTZ(3) METADATA FROM 'value.event-timestamp' VIRTUAL,
        origin_database STRING METADATA FROM 'value.database' VIRTUAL,
        origin_table STRING METADATA FROM 'value.table' VIRTUAL,
        sql_types MAP<STRING, INT> METADATA FROM 'value.sql-type' VIRTUAL,
        pk ARRAY<STRING> METADATA FROM 'value.pk-names' VIRTUAL,
        ingestion_time TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL,
        part INT METADATA FROM 'partition' VIRTUAL
      ) WITH (${KAFKA}, 'format' = 'canal-json')`,
      'p',
    );
    const first = decode(CANAL_DATA[0] as string);
    expect(first).toHaveLength(9);
    expect((first[0] as Change<Row>).value).toEqual([
      101,
      'scooter',
      'Small 2-wheel scooter',
      Math.fround(3.14),
      1589373515000,
      'inventory',
      'products2',
      new Map([
        ['id', 4],
        ['name', 12],
        ['description', 12],
        ['weight', 7],
      ]),
      ['id'],
      1589373515477,
      0,
    ]);
    // The update's two changes carry the message's metadata too.
    expect(decode(CANAL_DATA[1] as string).map((c) => [c.kind, c.value[4], c.value[9]])).toEqual([
      ['-U', 1589373546000, 1589373546301],
      ['+U', 1589373546000, 1589373546301],
    ]);
    // An unknown key, a wrong type, and a format without these keys are refused by name.
    expect(planError('canal-json', '')).toBe('no error');
    const refused = (format: string, column: string): string => {
      try {
        tableDecoder(
          `CREATE TABLE q (${PRODUCT_COLUMNS}, ${column}) WITH (${KAFKA}, 'format' = '${format}')`,
          'q',
        );
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      return 'no error';
    };
    expect(refused('canal-json', "x STRING METADATA FROM 'value.nope' VIRTUAL")).toContain(
      "connector 'kafka' has no metadata key 'value.nope'; allowed: topic, partition, offset, timestamp, timestamp-type, headers, leader-epoch, value.database, value.table, value.sql-type, value.pk-names, value.ingestion-timestamp, value.event-timestamp",
    );
    expect(refused('canal-json', "x INT METADATA FROM 'value.database' VIRTUAL")).toContain(
      "column 'x': metadata 'value.database' is STRING, not INT",
    );
    expect(refused('json', "x STRING METADATA FROM 'value.database' VIRTUAL")).toContain(
      "connector 'kafka' has no metadata key 'value.database'",
    );
    expect(refused('maxwell-json', "x STRING METADATA FROM 'value.pk-names' VIRTUAL")).toContain(
      'value.primary-key-columns',
    );
  });

  it('[canal-factory] testDefaultOptions, testUserDefinedOptions: what the options change', () => {
    const columns: FormatColumn[] = [
      { name: 'ts', type: T.timestamp(3) },
      { name: 'm', type: { kind: 'MAP', nullable: true, key: T.string(), value: T.int() } },
      { name: 'd', type: T.decimal(10, 8) },
    ];
    const row: Row = [
      Date.UTC(2024, 0, 2, 3, 4, 5, 678),
      new Map([
        [null, 1],
        ['k', 2],
      ]),
      1n,
    ];
    const options = (entries: Record<string, string>) => (name: string) => entries[name];
    // Defaults: SQL timestamps, a null MAP key fails, a DECIMAL as Java's BigDecimal text.
    const defaults = changelogJsonFormat('canal-json', columns, options({}), [], false);
    expect(() => defaults.encode({ kind: '+I', value: row })).toThrow(
      'a MAP with a null key cannot be written as JSON',
    );
    expect(
      defaults.encode({ kind: '+I', value: [row[0], new Map([['k', 2]]), 1n] }).toString(),
    ).toBe('{"data":[{"ts":"2024-01-02 03:04:05.678","m":{"k":2},"d":1E-8}],"type":"INSERT"}');
    const user = changelogJsonFormat(
      'canal-json',
      columns,
      options({
        'canal-json.ignore-parse-errors': 'true',
        'canal-json.timestamp-format.standard': 'ISO-8601',
        'canal-json.database.include': 'mydb',
        'canal-json.table.include': 'mytable',
        'canal-json.map-null-key.mode': 'LITERAL',
        'canal-json.map-null-key.literal': 'nullKey',
        'canal-json.encode.decimal-as-plain-number': 'true',
      }),
      [],
      false,
    );
    expect(user.encode({ kind: '-U', value: row }).toString()).toBe(
      '{"data":[{"ts":"2024-01-02T03:04:05.678","m":{"nullKey":1,"k":2},"d":0.00000001}],"type":"DELETE"}',
    );
    const message = (database: string, table: string) =>
      Buffer.from(
        JSON.stringify({
          data: [{ ts: '2024-01-02T03:04:05.678', m: { k: 2 }, d: '0.5' }],
          database,
          table,
          type: 'INSERT',
        }),
      );
    expect(user.decode(message('mydb', 'mytable'))).toEqual([
      { kind: '+I', value: [Date.UTC(2024, 0, 2, 3, 4, 5, 678), new Map([['k', 2]]), 50000000n] },
    ]);
    // Only the whole name matches. With ignore-parse-errors a value that does not fit is null
    // (as Flink's inner json reader does); a message that is not JSON still throws, for the
    // source to skip and count (changelog-format-bad-records.test.ts).
    expect(user.decode(message('mydb2', 'mytable'))).toEqual([]);
    expect(user.decode(message('mydb', 'mytable_2'))).toEqual([]);
    expect(
      user.decode(
        Buffer.from(
          '{"data": [{"d": "x"}], "type": "INSERT", "database": "mydb", "table": "mytable"}',
        ),
      ),
    ).toEqual([{ kind: '+I', value: [null, null, null] }]);
    expect(() => user.decode(Buffer.from('not json'))).toThrow('not JSON');
    expect(() => defaults.decode(Buffer.from('{"data": [{"d": "x"}], "type": "INSERT"}'))).toThrow(
      `field 'data[0].d' expects DECIMAL(10, 8), got "x"`,
    );
    expect(() => defaults.decode(Buffer.from('{"data": [], "type": "ALTER"}'))).toThrow(
      `field 'type' is "ALTER"; allowed values: INSERT, UPDATE, DELETE, INIT`,
    );
    // DROP leaves the null key out.
    const drop = changelogJsonFormat(
      'canal-json',
      columns,
      options({ 'canal-json.map-null-key.mode': 'DROP' }),
      [],
      false,
    );
    expect(drop.encode({ kind: '+U', value: row }).toString()).toBe(
      '{"data":[{"ts":"2024-01-02 03:04:05.678","m":{"k":2},"d":1E-8}],"type":"INSERT"}',
    );
  });

  it('[canal-factory] testInvalidIgnoreParseError, testInvalidOptionForTimestampFormat, testInvalidOptionForMapNullKeyMode', () => {
    expect(planError('canal-json', ", 'canal-json.ignore-parse-errors' = 'abc'")).toContain(
      "option 'canal-json.ignore-parse-errors' of connector 'kafka' is 'abc'; allowed values: true, false",
    );
    expect(planError('canal-json', ", 'canal-json.timestamp-format.standard' = 'test'")).toContain(
      "option 'canal-json.timestamp-format.standard' of connector 'kafka' is 'test'; allowed values: SQL, ISO-8601",
    );
    expect(planError('canal-json', ", 'canal-json.map-null-key.mode' = 'invalid'")).toContain(
      "option 'canal-json.map-null-key.mode' of connector 'kafka' is 'invalid'; allowed values: FAIL, DROP, LITERAL",
    );
    expect(planError('canal-json', ", 'canal-json.ignore-parse-errors' = 'true'")).toBe('no error');
  });
});

describe('canal-json: a deliberate difference', () => {
  it("an UPDATE batch: each row's before image from its own entry of `old`", () => {
    const message = {
      data: [
        { id: '1', name: 'a', description: 'x2', weight: '1.5' },
        { id: '2', name: 'b', description: 'y', weight: '2.5' },
      ],
      old: [{ description: 'x1' }, { weight: '2.0' }],
      type: 'UPDATE',
    };
    const changes = canalJsonFormat(PRODUCT).decode(Buffer.from(JSON.stringify(message)));
    // Flink's gives -U(1,a,x1,null) and -U(2,b,null,2.0).
    expect(changes.map(show)).toEqual([
      '-U(1,a,x1,1.5)',
      '+U(1,a,x2,1.5)',
      '-U(2,b,y,2.0)',
      '+U(2,b,y,2.5)',
    ]);
  });
});

describe('maxwell-json', () => {
  it('[maxwell-serde] testSerializationDeserialization: reads maxwell-data.txt into the changelog and writes it back', () => {
    const format = maxwellJsonFormat(PRODUCT, {
      timestampStandard: 'SQL',
      mapNullKeyMode: 'LITERAL',
      mapNullKeyLiteral: 'null',
      decimalAsPlainNumber: true,
    });
    const changes = decodeAll(format, MAXWELL_DATA);
    expect(changes.map(show)).toEqual(MAXWELL_CHANGELOG);
    expect(encodeAll(format, changes)).toEqual(MAXWELL_SERIALIZED);
    // Through SQL, the same changelog.
    const decode = tableDecoder(
      `CREATE TABLE p (${PRODUCT_COLUMNS}) WITH (${KAFKA}, 'format' = 'maxwell-json')`,
      'p',
    );
    expect(MAXWELL_DATA.flatMap(decode).map(show)).toEqual(MAXWELL_CHANGELOG);
  });

  it('[maxwell-serde] testDeserializationWithMetadata: every metadata key after the columns', () => {
    const format = maxwellJsonFormat(PRODUCT, {
      metadata: ['database', 'table', 'primary-key-columns', 'ingestion-timestamp'],
    });
    const changes = format.decode(Buffer.from(MAXWELL_DATA[0] as string, 'utf8'));
    expect(changes).toHaveLength(1);
    expect((changes[0] as Change<Row>).value).toEqual([
      101,
      'scooter',
      'Small 2-wheel scooter',
      Math.fround(3.14),
      'test',
      'product',
      ['id'],
      1596684883000,
    ]);
    const decode = tableDecoder(
      `CREATE TABLE p (${PRODUCT_COLUMNS},
        ingested TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL,
        pk ARRAY<STRING> METADATA FROM 'value.primary-key-columns' VIRTUAL,
        origin_table STRING METADATA FROM 'value.table' VIRTUAL
      ) WITH (${KAFKA}, 'format' = 'maxwell-json')`,
      'p',
    );
    expect(decode(MAXWELL_DATA[9] as string).map((c) => [c.kind, ...c.value])).toEqual([
      ['-U', 106, 'hammer', "16oz carpenter's hammer", 1, 1596684893000, ['id'], 'product'],
      ['+U', 106, 'hammer', '18oz carpenter hammer', 1, 1596684893000, ['id'], 'product'],
    ]);
  });

  it("[maxwell-factory] testSeDeSchema: the options of Flink's table", () => {
    const options: Record<string, string> = {
      'maxwell-json.ignore-parse-errors': 'true',
      'maxwell-json.timestamp-format.standard': 'ISO-8601',
      'maxwell-json.map-null-key.mode': 'LITERAL',
      'maxwell-json.map-null-key.literal': 'null',
      'maxwell-json.encode.decimal-as-plain-number': 'true',
    };
    const columns: FormatColumn[] = [
      { name: 'ts', type: T.timestamp(3) },
      { name: 'm', type: { kind: 'MAP', nullable: true, key: T.string(), value: T.int() } },
      { name: 'd', type: T.decimal(10, 8) },
    ];
    const format = changelogJsonFormat('maxwell-json', columns, (n) => options[n], [], false);
    expect(
      format
        .encode({
          kind: '+I',
          value: [Date.UTC(2024, 0, 2, 3, 4, 5, 678), new Map([[null, 1]]), 1n],
        })
        .toString(),
    ).toBe(
      '{"data":{"ts":"2024-01-02T03:04:05.678","m":{"null":1},"d":0.00000001},"type":"insert"}',
    );
    expect(format.decode(Buffer.from('{"data": {"d": "x"}, "type": "insert"}'))).toEqual([
      { kind: '+I', value: [null, null, null] },
    ]);
    expect(() => format.decode(Buffer.from('{"data": {"d": 1}, "type": "upsert"}'))).toThrow(
      `field 'type' is "upsert"; allowed values: insert, update, delete`,
    );
    const strict = changelogJsonFormat('maxwell-json', columns, () => undefined, [], false);
    expect(() => strict.decode(Buffer.from('{"data": {"d": "x"}, "type": "insert"}'))).toThrow(
      `field 'data.d' expects DECIMAL(10, 8), got "x"`,
    );
    expect(() => strict.decode(Buffer.from('{"data": {}, "type": "bootstrap-insert"}'))).toThrow(
      `field 'type' is "bootstrap-insert"; allowed values: insert, update, delete`,
    );
    const sql = Object.entries(options)
      .map(([k, v]) => `, '${k}' = '${v}'`)
      .join('');
    expect(planError('maxwell-json', sql)).toBe('no error');
  });

  it('[maxwell-factory] testInvalidIgnoreParseError, testInvalidOptionForTimestampFormat, testInvalidOptionForMapNullKeyMode', () => {
    expect(planError('maxwell-json', ", 'maxwell-json.ignore-parse-errors' = 'abc'")).toContain(
      "option 'maxwell-json.ignore-parse-errors' of connector 'kafka' is 'abc'; allowed values: true, false",
    );
    expect(
      planError('maxwell-json', ", 'maxwell-json.timestamp-format.standard' = 'test'"),
    ).toContain(
      "option 'maxwell-json.timestamp-format.standard' of connector 'kafka' is 'test'; allowed values: SQL, ISO-8601",
    );
    expect(planError('maxwell-json', ", 'maxwell-json.map-null-key.mode' = 'invalid'")).toContain(
      "option 'maxwell-json.map-null-key.mode' of connector 'kafka' is 'invalid'; allowed values: FAIL, DROP, LITERAL",
    );
    // Canal's table filters are not maxwell-json options (nor Flink's).
    expect(planError('maxwell-json', ", 'maxwell-json.table.include' = 'x'")).toContain(
      'maxwell-json.table.include',
    );
  });
});
