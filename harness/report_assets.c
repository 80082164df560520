/*
** The report page's style and its one script. The charts themselves are SVG written by
** report_svg.c; the script does not draw. It records any script error, then, once the page
** is laid out, counts the chart marks that have a visible size and writes the verdict on
** <body data-xp-report="ok | blank: ... | error: ...">, which a headless browser test reads.
*/
#include "report.h"

const char rp_css[] =
    ":root{color-scheme:light;--ink:#1f2328;--muted:#59636e;--line:#d0d7de}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--ink);"
    "margin:0 auto;max-width:1000px;padding:16px 20px 40px}"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 4px}"
    ".meta,.note,footer{color:var(--muted)}.note{margin:0 0 8px;max-width:960px}"
    "nav a{margin-right:14px}"
    ".nodata{border:1px dashed var(--line);border-radius:6px;padding:18px;color:var(--muted);"
    "background:#f6f8fa}.nodata strong{color:var(--ink)}"
    "table.runs{border-collapse:collapse;margin-top:6px}"
    "table.runs th,table.runs td{border-bottom:1px solid var(--line);padding:3px 12px 3px 0;"
    "text-align:left}table.runs td.n{text-align:right}"
    "svg.chart{display:block;max-width:100%;height:auto;font-size:12px}"
    "svg .grid{stroke:#eaeef2;stroke-width:1}svg .frame{fill:none;stroke:#8c959f}"
    "svg .tick{fill:var(--muted);font-size:11px}svg .axis-label{fill:var(--ink);font-size:12px}"
    "svg .legend-item text{fill:var(--ink);font-size:12px}"
    "svg .line{stroke-width:2}svg .ref{stroke-width:1.5;stroke-dasharray:6 4}"
    "svg .point{stroke:#fff;stroke-width:1}svg .mark:hover{opacity:.75}"
    "svg .row-label{font-size:13px;fill:var(--ink)}svg .row-detail{font-size:11px;fill:var(--muted)}"
    "svg .bar{stroke:#fff;stroke-width:.5}svg .bar-value{fill:#fff;font-size:11px;pointer-events:none}";

const char rp_error_script[] =
    "window.xpReportErrors=[];window.addEventListener('error',function(e){"
    "window.xpReportErrors.push(String(e.message||e.type));});";

const char rp_script[] =
    "(function(){\n"
    "  function verdict(){\n"
    "    var errors=window.xpReportErrors||[],blank=[],drawn=0;\n"
    "    var sections=document.querySelectorAll('section.chart-section');\n"
    "    for(var i=0;i<sections.length;i++){\n"
    "      var s=sections[i],svg=s.querySelector('svg.chart'),visible=0;\n"
    "      if(!svg){s.setAttribute('data-drawn','0');continue;}\n"
    "      var marks=svg.querySelectorAll('.mark');\n"
    "      for(var j=0;j<marks.length;j++){\n"
    "        var b=marks[j].getBBox();\n"
    "        if(b.width>0||b.height>0)visible++;\n"
    "      }\n"
    "      s.setAttribute('data-drawn',String(visible));\n"
    "      if(visible>0)drawn++;else blank.push(s.id);\n"
    "    }\n"
    "    document.body.setAttribute('data-charts-drawn',String(drawn));\n"
    "    document.body.setAttribute('data-xp-report',errors.length?'error: '+errors.join('; '):\n"
    "      blank.length?'blank: '+blank.join(' '):'ok');\n"
    "  }\n"
    "  function run(){try{verdict();}catch(e){(window.xpReportErrors=window.xpReportErrors||[])"
    ".push(String(e));document.body.setAttribute('data-xp-report','error: '+e);}}\n"
    "  if(document.readyState==='complete')run();else window.addEventListener('load',run);\n"
    "})();\n";
