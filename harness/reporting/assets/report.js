(function(){
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var colours = data.colours, panel = document.getElementById('panel'), body = document.getElementById('panel-body');
  function text(tag, value, cls){ var e = document.createElement(tag); if (cls) e.className = cls; e.textContent = value; return e; }
  function field(dl, name, value){ if (value === null || value === undefined || value === '') return;
    dl.appendChild(text('dt', name)); var dd = document.createElement('dd');
    if (name === 'excerpt' || name === 'reproduce') dd.appendChild(text('pre', value)); else dd.textContent = value;
    dl.appendChild(dd); }
  function open(tool, column){
    var cases = (data.matrix.cells[tool] || {})[column] || [];
    document.getElementById('panel-title').textContent = tool + ' \u00b7 ' + column + ' \u00b7 ' + cases.length + ' cases';
    body.innerHTML = '';
    cases.forEach(function(c){
      var div = text('div', '', 'case'); div.setAttribute('data-case', c.id);
      div.appendChild(text('div', c.id, 'id'));
      var tag = text('span', c.layer, 'tag'); tag.style.background = colours[c.layer] || '#000'; div.appendChild(tag);
      div.appendChild(text('span', ' ' + c.status + (c.problem ? ' (' + c.problem + ')' : '')));
      var dl = document.createElement('dl');
      field(dl, 'expected', c.expected); field(dl, 'actual', c.actual); field(dl, 'pointer', c.pointer);
      field(dl, 'message', c.message); field(dl, 'detail', c.detail); field(dl, 'mutation', c.mutation);
      field(dl, 'excerpt', c.excerpt); field(dl, 'reproduce', c.reproduce);
      div.appendChild(dl); body.appendChild(div);
    });
    panel.className = 'open';
  }
  document.querySelectorAll('td.cell[data-tool]').forEach(function(td){
    td.addEventListener('click', function(){ open(td.getAttribute('data-tool'), td.getAttribute('data-column')); });
  });
  document.getElementById('close').addEventListener('click', function(){ panel.className = ''; });
})();
