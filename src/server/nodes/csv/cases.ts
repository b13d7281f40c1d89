/**
 * Differential cases for the csv node, taken from Node-RED 4.1's test/nodes/core/parsers/70-CSV_spec.js
 * (both its legacy and RFC sections): each case is one of its tests' flow and the messages it sends.
 */
import type { DiffCase } from "@/test/node-red-diff/types";

const fromSpec: DiffCase[] = [
  {
    "name": "CSV node (Legacy Mode) > csv to json > should convert a simple csv string to a javascript object",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should convert a simple string to a javascript object with | separator (no template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "sep": "|",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1|2|3|4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should convert a simple string to a javascript object with tab separator (with template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "sep": "\t",
        "temp": "A,B,,D",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1\t2\t3\t4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should convert a simple string to a javascript object with space separator (with spaced template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "sep": " ",
        "temp": "A, B, , D",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1 2 3 4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should remove quotes and whitespace from template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "\"a\",  \"b\" , \" c \",\" d  \" ",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should create column names if no template provided",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow dropping of fields from the template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,,,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow commas and spaces in the template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b b,\"c,c\",\" d, d \"",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow passing in a template as first line of CSV",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,b b,\"c,c\",\" d, d \"\n1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow passing in a template as first line of CSV (not comma)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "sep": ";",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a;b b;\"c;c\";\" d, d \"\n1;2;3;4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow passing in a template as first line of CSV (special char /)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "sep": "/",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a/b b/\"c/c\"/\" d, d \"\n1/2/3/4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow passing in a template as first line of CSV (special char \\)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "sep": "\\",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a\\b b\\\"c\\c\"\\\" d, d \"\n1\\2\\3\\4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should leave numbers starting with 0, e and + as strings (except 0.)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "123,0123,+123,e123,E123,-123\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should not parse numbers when told not to do so",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "strings": false,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1.23,0123,+123,e123,0,-123,1e3\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should parse numbers when told to do so",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": " 1.23 ,  -123,1e3 ,    0  \n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should leave handle strings with scientific notation as numbers",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "12E3,12e-3,-12e3,-12E-3\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow quotes in the input (but drop blank strings)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g,h",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",\"-2\",\"+3\",\"04\",\"\",\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow blank strings in the input if selected",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "include_empty_strings": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",\"\",\"\",\"\",\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should allow missing columns (nulls) in the input if selected",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "include_null_values": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",,\"+3\",,\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should handle cr and lf in the input",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"with a\nnew line\",\"and a\rcarriage return\",\"and why\r\nnot both\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should recover from an odd number of quotes in the input",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"with,a\"n,odd\",\"num\"ber\",\"of\"qu\"ot\"es\"\n"
        }
      },
      {
        "msg": {
          "payload": "\"this is\",\"a normal\",\"line\""
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should recover from an odd number of quotes in the input (2)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"with,a\"n,odd\",\"num\"ber\",\"of\"qu\"ot\"es\"\n\"this is\",\"a normal\",\"line\"\n"
        }
      },
      {
        "msg": {
          "payload": "\"this is\",\"another\",\"line\""
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to use the first line as a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "w,x,y,z\n1,2,3,4\n\n5,6,7,8"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to output multiple lines as one array",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "multi": "yes",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,-6,07,+8\n9,0,a,b\nc,d,e,f"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to create an array from multiple parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "multi": "mult",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,b,c",
          "parts": {
            "index": 0,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3",
          "parts": {
            "index": 1,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "4,5,6",
          "parts": {
            "index": 2,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "7,8,9",
          "parts": {
            "index": 3,
            "count": 4,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to output multiple objects as an array from an input of parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "multi": "yes",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "Col1,Col2\nV1,V2\nV3,V4\nV5,V6",
          "topic": "",
          "parts": {
            "id": "3af07e18.865652",
            "type": "array",
            "count": 2,
            "len": 1,
            "index": 0
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should handle numbers in strings but not IP addresses",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d,e",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,127.0.0.1,56.7,-32.8,+76.22C"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should preserve parts property",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 3,
            "count": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to use the first of multiple parts as a template if parts are present",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "w,x,y,z\n",
          "parts": {
            "id": "X",
            "index": 0,
            "count": 3
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 1,
            "count": 3
          }
        }
      },
      {
        "msg": {
          "payload": "5,6,7,8\n",
          "parts": {
            "id": "X",
            "index": 2,
            "count": 3
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should skip several lines from start if requested",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should skip several lines from start then use next line as a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "hdrin": true,
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\nC,D,E,F\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should skip several lines from start and correct parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\nC,D,E,F\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > csv to json > should be able to skip and then use the first of multiple parts as a template if parts are present",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrin": true,
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "foo\n",
          "parts": {
            "id": "X",
            "index": 0,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "bar\n",
          "parts": {
            "id": "X",
            "index": 1,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "w,x,y,z\n",
          "parts": {
            "id": "X",
            "index": 2,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 3,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "5,6,7,8\n",
          "parts": {
            "id": "X",
            "index": 4,
            "count": 5
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert a simple object back to a csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,,e,f,g,h,i,j,k",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "e": 0,
            "d": 1,
            "b": "foo",
            "c": true,
            "a": 4,
            "f": "Hello\nWorld",
            "i": "undefined",
            "j": null,
            "k": "null"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert a simple object back to a csv with no template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": " ",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": 1,
            "b": "foo",
            "c": "ba\"r",
            "a": "di,ng",
            "f": "undefined",
            "g": null,
            "h": "null"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert a simple object back to a tsv using a tab as a separator",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "sep": "\t",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": 1,
            "b": "foo",
            "c": "ba\"r",
            "a": "di,ng"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should handle a template with spaces in the property names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b o,c p,,e",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "e": 0,
            "d": 1,
            "b o": "foo",
            "c p": true,
            "a": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should handle a template with quotes in the property names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrout": "all",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "a\"a": "A1",
              "b'b": "B1"
            },
            {
              "a\"a": "A2",
              "b'b": "B2"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert an array of objects to a multi-line csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,d,c,b",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert an array of objects to a multi-line csv and add a header",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "hdrout": "all",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": "a\nb",
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert an array of objects to a multi-line csv without a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert an array of objects to a multi-line csv without a template and with a header",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrout": "all",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": "f\ng"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert a simple array back to a csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            "",
            0,
            1,
            "foo",
            "ba\"r",
            "di,ng",
            "fa\nba"
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should convert an array of arrays back to a multi-line csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            [
              0,
              1,
              2,
              3,
              4
            ],
            [
              4,
              3,
              2,
              1,
              0
            ]
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should be able to include column names as first row",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "hdrout": true,
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should be able to include column names as first row, and missing properties",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "hdrout": true,
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "col1": "H1",
              "col2": "H2",
              "col3": "H3",
              "col4": "H4"
            },
            {
              "col1": "A",
              "col2": "B"
            },
            {
              "col1": "A",
              "col3": "C"
            },
            {
              "col1": "A",
              "col4": "D\nE"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should be able to pass in column names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "",
        "hdrout": "once",
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "columns": "a,,b,a",
          "parts": {
            "index": 0
          }
        }
      },
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "parts": {
            "index": 1
          }
        }
      },
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "parts": {
            "index": 2
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should be able to pass in column names - with payload as an array",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "hdrout": "once",
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "columns": "a,,b,a"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > json object to csv > should handle quotes and sub-properties",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": {
              "sub": "object"
            },
            "b": "text,with,commas",
            "c": "This \"is\" a banana",
            "a": {}
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > should just pass through if no payload provided",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "topic": {
            "d": 1,
            "b": 3,
            "c": 2,
            "a": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (Legacy Mode) > should warn if provided a number or boolean",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": 1
        }
      },
      {
        "msg": {
          "payload": true
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should convert a simple csv string to a javascript object",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should convert a simple string to a javascript object with | separator (no template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "sep": "|",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1|2|3|4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should convert a simple string to a javascript object with tab separator (with template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "sep": "\t",
        "temp": "A,B,,D",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1\t2\t3\t4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should convert a simple string to a javascript object with space separator (with spaced template)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "sep": " ",
        "temp": "A, B, , D",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1 2 3 4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should create column names if no template provided",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow dropping of fields from the template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,,,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow commas and spaces in the template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b b,\"c,c\",\" d, d \"",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow passing in a template as first line of CSV",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,b b,\"c,c\",\" d, d \"\n1,2,3,4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow passing in a template as first line of CSV (not comma)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "sep": ";",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a;b b;\"c;c\";\" d, d \"\n1;2;3;4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow passing in a template as first line of CSV (special char /)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "sep": "/",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a/b b/\"c/c\"/\" d, d \"\n1/2/3/4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow passing in a template as first line of CSV (special char \\)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "sep": "\\",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a\\b b\\\"c\\c\"\\\" d, d \"\n1\\2\\3\\4\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should leave numbers starting with 0, e and + as strings (except 0.)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "123,0123,+123,e123,E123,-123\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should not parse numbers when told not to do so",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "strings": false,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1.23,0123,+123,e123,0,-123,1e3\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should parse numbers when told to do so",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": " 1.23 ,  -123,1e3 ,    0  \n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should leave handle strings with scientific notation as numbers",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "12E3,12e-3,-12e3,-12E-3\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow quotes in the input (but drop blank strings)",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g,h",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",\"-2\",\"+3\",\"04\",\"\",\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow blank strings in the input if selected",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "include_empty_strings": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",\"\",\"\",\"\",\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should allow missing columns (nulls) in the input if selected",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "include_null_values": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"1\",,\"+3\",,\"-05\",\"ab\"\"cd\",\"with,a,comma\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should handle cr and lf in the input",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"with a\nnew line\",\"and a\rcarriage return\",\"and why\r\nnot both\"\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should recover from an odd number of quotes in the input",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "\"with,a\"n,odd\",\"num\"ber\",\"of\"qu\"ot\"es\"\n"
        }
      },
      {
        "msg": {
          "payload": "\"this is\",\"a normal\",\"line\""
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should handle newlines in the input data",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e,f,g",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "ay,be,\"c has 2\nnew\nlines\",dee,eee,eff,gee"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to use the first line as a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "w,x,y,z\n1,2,3,4\n\n5,6,7,8"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to output multiple lines as one array",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "multi": "yes",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,-6,07,+8\n9,0,a,b\nc,d,e,f"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to create an array from multiple parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "multi": "mult",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,b,c",
          "parts": {
            "index": 0,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3",
          "parts": {
            "index": 1,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "4,5,6",
          "parts": {
            "index": 2,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      },
      {
        "msg": {
          "payload": "7,8,9",
          "parts": {
            "index": 3,
            "count": 4,
            "ch": "\n",
            "type": "string",
            "id": "1"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to output multiple objects as an array from an input of parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "multi": "yes",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "Col1,Col2\nV1,V2\nV3,V4\nV5,V6",
          "topic": "",
          "parts": {
            "id": "3af07e18.865652",
            "type": "array",
            "count": 2,
            "len": 1,
            "index": 0
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should handle numbers in strings but not IP addresses",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d,e",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "a,127.0.0.1,56.7,-32.8,+76.22C"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should preserve parts property",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 3,
            "count": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to use the first of multiple parts as a template if parts are present",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "w,x,y,z\n",
          "parts": {
            "id": "X",
            "index": 0,
            "count": 3
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 1,
            "count": 3
          }
        }
      },
      {
        "msg": {
          "payload": "5,6,7,8\n",
          "parts": {
            "id": "X",
            "index": 2,
            "count": 3
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should skip several lines from start if requested",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should skip several lines from start then use next line as a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "hdrin": true,
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\nC,D,E,F\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should skip several lines from start and correct parts",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "1,2,3,4\n5,6,7,8\n9,0,A,B\nC,D,E,F\n"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > csv to json > should be able to skip and then use the first of multiple parts as a template if parts are present",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrin": true,
        "skip": 2,
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": "foo\n",
          "parts": {
            "id": "X",
            "index": 0,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "bar\n",
          "parts": {
            "id": "X",
            "index": 1,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "w,x,y,z\n",
          "parts": {
            "id": "X",
            "index": 2,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "1,2,3,4\n",
          "parts": {
            "id": "X",
            "index": 3,
            "count": 5
          }
        }
      },
      {
        "msg": {
          "payload": "5,6,7,8\n",
          "parts": {
            "id": "X",
            "index": 4,
            "count": 5
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert a simple object back to a csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,,e,f,g,h,i,j,k",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "e": 0,
            "d": 1,
            "b": "foo",
            "c": true,
            "a": 4,
            "f": "Hello\nWorld",
            "i": "undefined",
            "j": null,
            "k": "null"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert a simple object back to a csv with no template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": 1,
            "b": "foo",
            "c": "ba\"r",
            "a": "di,ng",
            "f": "undefined",
            "g": null,
            "h": "null"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert a simple object back to a tsv using a tab as a separator",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "sep": "\t",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": 1,
            "b": "foo",
            "c": "ba\"r",
            "a": "di,ng"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert a simple object back to a tsv with headers using a tab as a separator",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "sep": "\t",
        "ret": "\n",
        "hdrout": "all",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": 1,
            "b": "foo",
            "c": "ba\"r",
            "a": "di,ng"
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should handle a template with spaces in the property names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b o,c p,,e",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "e": 0,
            "d": 1,
            "b o": "foo",
            "c p": true,
            "a": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should handle a template with quotes in the property names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrout": "all",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "a\"a": "A1",
              "b'b": "B1"
            },
            {
              "a\"a": "A2",
              "b'b": "B2"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert an array of objects to a multi-line csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,d,c,b",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert an array of objects to a multi-line csv and add a header",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "hdrout": "all",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": "a\nb",
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert an array of objects to a multi-line csv without a template",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": 2
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert an array of objects to a multi-line csv without a template and with a header",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrout": "all",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 4,
              "a": 1,
              "c": 3,
              "b": "f\ng"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert a simple array back to a csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            "",
            0,
            1,
            "foo",
            "ba\"r",
            "di,ng",
            "fa\nba"
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should convert an array of arrays back to a multi-line csv",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            [
              0,
              1,
              2,
              3,
              4
            ],
            [
              4,
              3,
              2,
              1,
              0
            ]
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should be able to include column names as first row",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "hdrout": true,
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should be able to include column names as first row, and missing properties",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "hdrout": true,
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "col1": "H1",
              "col2": "H2",
              "col3": "H3",
              "col4": "H4"
            },
            {
              "col1": "A",
              "col2": "B"
            },
            {
              "col1": "A",
              "col3": "C"
            },
            {
              "col1": "A",
              "col4": "D\nE"
            }
          ]
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should be able to pass in column names",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "",
        "hdrout": "once",
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "columns": "a,,b,a",
          "parts": {
            "index": 0
          }
        }
      },
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "parts": {
            "index": 1
          }
        }
      },
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "parts": {
            "index": 2
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should be able to pass in column names - with payload as an array",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "hdrout": "once",
        "ret": "\r\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": [
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            },
            {
              "d": 1,
              "b": 3,
              "c": 2,
              "a": 4
            }
          ],
          "columns": "a,,b,a"
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > json object to csv > should handle quotes and sub-properties",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "ret": "\n",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": {
            "d": {
              "sub": "object"
            },
            "b": "text,with,commas",
            "c": "This \"is\" a banana",
            "a": {}
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > should just pass through if no payload provided",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "topic": {
            "d": 1,
            "b": 3,
            "c": 2,
            "a": 4
          }
        }
      }
    ],
    "settleMs": 150
  },
  {
    "name": "CSV node (RFC Mode) > should warn if provided a number or boolean",
    "nodes": [
      {
        "id": "n1",
        "type": "csv",
        "spec": "rfc",
        "temp": "a,b,c,d",
        "wires": [
          [
            "out"
          ]
        ]
      }
    ],
    "send": [
      {
        "msg": {
          "payload": 1
        }
      },
      {
        "msg": {
          "payload": true
        }
      }
    ],
    "settleMs": 150
  }
];

const rfc = (props: Record<string, unknown>) => ({ id: "n1", type: "csv", spec: "rfc", wires: [["out"]], ...props });
const legacy = (props: Record<string, unknown>) => ({ id: "n1", type: "csv", wires: [["out"]], ...props });

/** A catch node for the csv node's errors; a change node copies msg.error.message to msg.errmsg for the "errors" collector. */
const caught = [
  { id: "c", type: "catch", scope: ["n1"], uncaught: false, wires: [["m"]] },
  { id: "m", type: "change", rules: [{ t: "set", p: "errmsg", pt: "msg", to: "error.message", tot: "msg" }], wires: [["errors"]] },
];

/** Cases from the node's help text and our own tests, beyond Node-RED's spec. */
const fromHelp: DiffCase[] = [
  {
    name: "RFC: a number payload is an error catch nodes get",
    nodes: [rfc({}), ...caught],
    send: [{ msg: { payload: 1, topic: "t" } }],
    expect: 1,
    compare: ["payload", "topic", "errmsg"],
  },
  {
    name: "RFC: a malformed header row is an error catch nodes get",
    nodes: [rfc({ hdrin: true }), ...caught],
    send: [{ msg: { payload: 'a,b"c\n1,2' } }],
    expect: 1,
    compare: ["payload", "errmsg"],
  },
  {
    name: "legacy: a line starting with a separator fails as in Node-RED",
    nodes: [legacy({ temp: "a,b,c" }), ...caught],
    send: [{ msg: { payload: ",1,2" } }],
    settleMs: 200,
    compare: ["payload", "errmsg"],
  },
  {
    name: "help: empty strings and nulls excluded (RFC)",
    nodes: [rfc({ temp: "a,b,c,d" })],
    send: [{ msg: { payload: '1,,"",4' } }],
    expect: 1,
  },
  {
    name: "help: empty strings and nulls included (RFC)",
    nodes: [rfc({ temp: "a,b,c,d", include_empty_strings: true, include_null_values: true })],
    send: [{ msg: { payload: '1,,"",4\n5,"",,8' } }],
    expect: 2,
  },
  {
    name: "help: empty strings and nulls excluded (legacy)",
    nodes: [legacy({ temp: "a,b,c,d" })],
    send: [{ msg: { payload: '1,,"",4' } }],
    expect: 1,
  },
  {
    name: "help: empty strings and nulls included (legacy)",
    nodes: [legacy({ temp: "a,b,c,d", include_empty_strings: true, include_null_values: true })],
    send: [{ msg: { payload: '1,,"",4\n5,"",,8' } }],
    expect: 2,
  },
  {
    name: "help: header row once, again after msg.reset (RFC, CRLF)",
    nodes: [rfc({ temp: "kind,price", hdrout: "once", ret: "\\r\\n" })],
    send: [{ msg: { payload: { kind: "Apple", price: 100 } } }, { msg: { payload: { kind: "Pear", price: 90 } } }, { msg: { reset: true } }, { msg: { payload: { kind: "Fig", price: 5 } } }],
    expect: 3,
  },
  {
    name: "help: header row once, again after msg.reset (legacy)",
    nodes: [legacy({ temp: "kind,price", hdrout: "once", ret: "\\n" })],
    send: [{ msg: { payload: { kind: "Apple", price: 100 } } }, { msg: { reset: true } }, { msg: { payload: [{ kind: "Fig", price: 5 }, { kind: "Kiwi", price: "7,5" }] } }],
    expect: 2,
  },
  {
    name: "RFC: quoted fields with separators, quotes and line breaks, both ways",
    nodes: [rfc({ temp: "", hdrin: true, multi: "mult" })],
    send: [{ msg: { payload: 'name,note\r\n"Smith, J","say ""hi"""\r\n"multi\r\nline",x' } }],
    expect: 1,
  },
  {
    name: "RFC: writes quotes, separators and line breaks quoted, with msg.columns",
    nodes: [rfc({ hdrout: "all" })],
    send: [{ msg: { payload: [{ a: 'say "hi"', b: "x,y", c: "l1\nl2" }], columns: "c,a" } }],
    expect: 1,
  },
  {
    name: "RFC: semicolon separator, skip lines, header row, one message per row",
    nodes: [rfc({ sep: ";", skip: "1", hdrin: true })],
    send: [{ msg: { payload: "exported by x\na;b\n1;2,5\n3;4" } }],
    expect: 2,
  },
  {
    name: "legacy: semicolon separator, skip lines, header row, one message per row",
    nodes: [legacy({ sep: ";", skip: "1", hdrin: true })],
    send: [{ msg: { payload: "exported by x\na;b\n1;2,5\n3;4" } }],
    expect: 2,
  },
  {
    name: "RFC: an array of arrays with a template writes only the template's columns",
    nodes: [rfc({ temp: "a,,c" })],
    send: [{ msg: { payload: [[1, 2, 3], [4, 5, 6]] } }],
    expect: 1,
  },
];

export const cases: DiffCase[] = [...fromSpec, ...fromHelp];
